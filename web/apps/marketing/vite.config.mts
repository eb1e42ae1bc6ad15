import { defineConfig } from 'vite';
import { remoteConfig } from '../../tools/vite/shared.ts';

export default defineConfig(({ command }) => remoteConfig('marketing', command));
