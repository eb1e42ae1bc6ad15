import { defineConfig } from 'vitest/config';
import { vitestConfig } from '../../tools/vite/shared.ts';

export default defineConfig(vitestConfig(import.meta.dirname));
