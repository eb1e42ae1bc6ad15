// Standalone mode: the remote's exposed module rendered on its own, for
// development (`npx nx serve <remote>`). The shell never loads this file.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import Module from './remote-module';
import { standaloneProps } from './standalone';

const container = document.getElementById('root');
if (!container) throw new Error('#root element not found');

createRoot(container).render(
  <StrictMode>
    <Module {...standaloneProps(window.location.pathname)} />
  </StrictMode>,
);
