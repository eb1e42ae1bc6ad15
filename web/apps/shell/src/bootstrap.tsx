import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, matchRoutes } from 'react-router-dom';
import { fanOut, installAnalytics, segmentSink, tagManagerSink } from '@hangar/analytics';
import { App } from './App';
import { RemoteLoaderContext } from './RemoteSlot';
import { createFederationLoader } from './remotes';
import { loadRuntimeConfig } from './runtime-config';
import { ROUTES } from './routes';

const container = document.getElementById('root');
if (!container) throw new Error('#root element not found');

// Analytics hooks (spec 001 §7): the customer-data queue and the tag manager's data layer.
// Every remote reads the same page-wide instance.
installAnalytics({ sink: fanOut(segmentSink(window as never), tagManagerSink(window as never)) });

// The header renders at once; remotes wait for /config.json.
const loader = createFederationLoader(loadRuntimeConfig());
// The page's remote starts loading now, alongside the shell's first render, rather than
// once React has rendered down to its slot (the loader hands the slot the same promise; a
// failure there is the slot's to show).
const first = matchRoutes(
  ROUTES.map((r) => ({ path: r.path })),
  window.location.pathname,
)?.[0]?.route.path;
const firstRoute = ROUTES.find((r) => r.path === first);
if (firstRoute) loader(firstRoute.remote, 0).catch(() => undefined);
for (const href of firstRoute?.data ?? []) {
  // crossorigin: the request the page makes (fetch, same-origin credentials) must match.
  document.head.append(Object.assign(document.createElement('link'), { rel: 'preload', as: 'fetch', crossOrigin: 'anonymous', href }));
}

// A transition: React renders the first page in slices, yielding to the browser between
// them, rather than in one task that blocks input while the page is built.
const root = createRoot(container);
startTransition(() =>
  root.render(
    <StrictMode>
      <RemoteLoaderContext.Provider value={loader}>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </RemoteLoaderContext.Provider>
    </StrictMode>,
  ),
);
