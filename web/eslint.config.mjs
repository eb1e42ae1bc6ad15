// The web workspace's linter (`npm run lint`, part of `make lint`). Its main rule is Nx's
// module boundaries: an app imports libraries only, never another app (a remote never
// imports from another remote), and a library imports libraries only.
import nx from '@nx/eslint-plugin';
import tsParser from '@typescript-eslint/parser';
import reactHooks from 'eslint-plugin-react-hooks';

export default [
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'test-results/**', '**/generated/**', '**/*.d.ts'],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    // The build configs import the workspace's one build recipe (tools/vite/shared.ts).
    ignores: ['**/vite.config.mts', '**/vitest.config.mts'],
    languageOptions: {
      parser: tsParser,
      parserOptions: { ecmaVersion: 'latest', sourceType: 'module', ecmaFeatures: { jsx: true } },
    },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { '@nx': nx, 'react-hooks': reactHooks },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib'] },
          ],
        },
      ],
      'react-hooks/rules-of-hooks': 'error',
    },
  },
  {
    // An app's file that outgrows a screenful or two is several components: split it
    // (issue 43: a newcomer reads a page's pieces, not one long file).
    files: ['apps/**/*.ts', 'apps/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
];
