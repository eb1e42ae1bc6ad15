import { useEffect } from 'react';
import { Route, Routes, matchRoutes, useLocation, useNavigate, useParams, Link } from 'react-router-dom';
import { analytics } from '@hangar/analytics';
import { ROUTES, SITE_NAME, ownsSiteNav, type ShellRoute } from './routes';
import { MainNav } from './MainNav';
import { RemoteSlot } from './RemoteSlot';
import s from './shell.module.css';
import { CookieBanner, SalesModeBanner, useKioskMode } from './StoreBanners';

function RoutePage({ route }: { route: ShellRoute }) {
  const params = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  useEffect(() => {
    document.title = `${route.title} · ${SITE_NAME}`;
    // Page views are logged using the page title.
    analytics().page(document.title);
  }, [route.title, location.pathname]);
  return <RemoteSlot remote={route.remote} route={route.path} params={params} navigate={(to) => navigate(to)} />;
}

function NotFound() {
  useEffect(() => {
    document.title = `Page not found · ${SITE_NAME}`;
  }, []);
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page here. Go to the <Link to="/">home page</Link> or <Link to="/pricing">compare plans</Link>.
      </p>
    </section>
  );
}

/**
 * The header; `mainNav` false leaves out the Main bar on pages whose remote brings the site's
 * navigation itself (the marketing Site bar), so a page never shows two navigation bars.
 */
export function Header({ mainNav = true }: { mainNav?: boolean }) {
  return (
    <header className={s.shellHeader}>
      <a className={s.shellSkip} href="#main">
        Skip to content
      </a>
      <div className={s.shellHeaderInner}>
        <Link to="/" className={s.shellBrand}>
          {SITE_NAME}
        </Link>
        {mainNav && <MainNav />}
      </div>
    </header>
  );
}

/** The remotes whose pages sell something paid once (gift certificates, one-off carts). */
const ONE_TIME_REMOTES: ReadonlySet<string> = new Set(['gift', 'oneoff']);

export function App() {
  useKioskMode();
  const location = useLocation();
  const route = matchRoutes(ROUTES as ShellRoute[], location)?.[0]?.route;
  return (
    <>
      <Header mainNav={!route || !ownsSiteNav(route.remote)} />
      <SalesModeBanner />
      <main id="main" className={s.shellMain} tabIndex={-1}>
        <Routes>
          {ROUTES.map((r) => (
            <Route key={r.path} path={r.path} element={<RoutePage route={r} />} />
          ))}
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
      <footer className={s.shellFooter}>
        {/* Gift certificates and one-off carts are paid once: no per-year note there (issue 45). */}
        <p>
          © {SITE_NAME}.{route && ONE_TIME_REMOTES.has(route.remote) ? '' : ' Prices are per year unless stated otherwise.'}
        </p>
      </footer>
      <CookieBanner />
    </>
  );
}
