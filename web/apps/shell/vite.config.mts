import { defineConfig } from 'vite';
import { shellConfig } from '../../tools/vite/shared.ts';

export default defineConfig(shellConfig());
