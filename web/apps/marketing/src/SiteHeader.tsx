import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { unwrap } from '@hangar/api-client';
import { currentUser, type CurrentUser } from '@hangar/storefront';
import { apiClient } from './api';
import { DROPDOWN_CLOSE_MS, MOBILE_PX, stickyClasses } from './behaviour';
import { Link } from './Link';
import { cx } from '@hangar/ui';
import s from './marketing.module.css';

export interface NavEntry {
  label: string;
  href: string;
}
export interface NavGroup {
  label: string;
  items: NavEntry[];
}

/** The marketing navigation: each group is a drop-down; the site map lists them all. */
export const NAV: NavGroup[] = [
  {
    label: 'Plans',
    items: [
      { label: 'Compare plans', href: '/pricing' },
      { label: 'Buy a subscription', href: '/buy' },
      { label: 'Military plans', href: '/buy/military' },
      { label: 'International military plans', href: '/buy/military_intl' },
      { label: 'Association members', href: '/buy/association' },
    ],
  },
  { label: 'Gifts', items: [{ label: 'Gift certificates', href: '/gift' }] },
  {
    label: 'Organizations',
    items: [
      { label: 'Your account', href: '/account' },
      { label: 'Licence allocation', href: '/account/allocation' },
      { label: 'Sales mode (staff)', href: '/buy/sales-mode' },
    ],
  },
  { label: 'About', items: [{ label: 'Privacy policy', href: '/privacy-policy' }] },
];

/** Touch screens and narrow windows open drop-downs by click; others by hover too. */
function hoverCapable(): boolean {
  return typeof window !== 'undefined' && window.innerWidth > MOBILE_PX && (window.matchMedia?.('(hover: hover)').matches ?? true);
}

function Dropdown({ group, open, setOpen, navigate }: { group: NavGroup; open: boolean; setOpen: (open: boolean) => void; navigate?: (to: string) => void }) {
  const listId = useId();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const overList = useRef(false);
  // Set when the pointer opened the list: a pointer always reaches the button before it
  // clicks it, so that click confirms the hover's opening instead of toggling it shut
  // (which, depending on whether React re-rendered between the two events, it did or not).
  const hoverOpened = useRef(false);
  useEffect(() => () => clearTimeout(timer.current), []);

  const cancelClose = () => clearTimeout(timer.current);
  // Closes 300 ms after the pointer leaves, unless it is over the list by then.
  const scheduleClose = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (!overList.current) setOpen(false);
    }, DROPDOWN_CLOSE_MS);
  };
  const focusItem = (i: number) => {
    const links = list.current?.querySelectorAll('a');
    if (links && links.length) (links[(i + links.length) % links.length] as HTMLElement).focus();
  };
  const onKey = (e: ReactKeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (!open) setOpen(true);
      const links = [...(list.current?.querySelectorAll('a') ?? [])];
      const at = links.indexOf(document.activeElement as HTMLAnchorElement);
      requestAnimationFrame(() => focusItem(at + 1));
    } else if (e.key === 'ArrowUp' && open) {
      e.preventDefault();
      const links = [...(list.current?.querySelectorAll('a') ?? [])];
      focusItem(links.indexOf(document.activeElement as HTMLAnchorElement) - 1);
    }
  };

  return (
    <li
      className={s.mkDd}
      onMouseEnter={() => {
        if (!hoverCapable()) return;
        cancelClose();
        if (!open) hoverOpened.current = true;
        setOpen(true);
      }}
      onMouseLeave={() => {
        if (hoverCapable()) scheduleClose();
      }}
      onKeyDown={onKey}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        ref={button}
        className={s.mkDdButton}
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => {
          const byHover = hoverOpened.current;
          hoverOpened.current = false;
          setOpen(byHover || !open);
        }}
      >
        {group.label}
      </button>
      <ul
        id={listId}
        ref={list}
        className={s.mkDdList}
        hidden={!open}
        onMouseEnter={() => {
          overList.current = true;
          cancelClose();
        }}
        onMouseLeave={() => {
          overList.current = false;
          if (hoverCapable()) scheduleClose();
        }}
      >
        {group.items.map((item) => (
          <li key={item.href}>
            <Link href={item.href} navigate={(to) => (setOpen(false), navigate?.(to))}>
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

function UserMenu({ navigate }: { navigate?: (to: string) => void }) {
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const menuId = useId();
  useEffect(() => {
    const ctl = new AbortController();
    currentUser(ctl.signal).then(setUser, () => setUser({ loggedIn: false }));
    return () => ctl.abort();
  }, []);
  if (!user) return <div className={s.mkUser} aria-hidden="true" />;
  if (!user.loggedIn) {
    return (
      <div className={s.mkUser}>
        <Link className={s.mkUserLogin} href="/buy?prompt=login" navigate={navigate}>
          Log in
        </Link>
      </div>
    );
  }
  const name = user.username || user.email || 'Account';
  return (
    <div
      className={s.mkUser}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setOpen(false);
      }}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button type="button" className={s.mkDdButton} aria-expanded={open} aria-controls={menuId} onClick={() => setOpen(!open)}>
        <span className={s.mkUserName}>{name}</span>
      </button>
      <ul id={menuId} className={`${s.mkDdList} ${s.mkDdListRight}`} hidden={!open}>
        <li>
          <Link href="/account/allocation" navigate={navigate}>
            Licence allocation
          </Link>
        </li>
        <li>
          <button
            type="button"
            className={s.mkUserLogout}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await unwrap(apiClient().identity.POST('/pricing/api/logout', { body: {} }));
              } finally {
                window.location.reload();
              }
            }}
          >
            Log out
          </button>
        </li>
      </ul>
    </div>
  );
}

/** The mobile site map: open, close, toggle; closes when the window is resized. */
function SiteMap({ open, setOpen, navigate }: { open: boolean; setOpen: (o: boolean) => void; navigate?: (to: string) => void }) {
  useEffect(() => {
    if (!open) return;
    const close = () => setOpen(false);
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('resize', close);
    document.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('resize', close);
      document.removeEventListener('keydown', esc);
    };
  }, [open, setOpen]);
  if (!open) return null;
  return (
    <nav id="mk-sitemap" className={s.mkSitemap} aria-label="Site map">
      {NAV.map((g) => (
        <div key={g.label}>
          <h2>{g.label}</h2>
          <ul>
            {g.items.map((i) => (
              <li key={i.href}>
                <Link href={i.href} navigate={(to) => (setOpen(false), navigate?.(to))}>
                  {i.label}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}

/** The marketing site's header: drop-down navigation, user menu, mobile site map, sticky on scroll. */
export function SiteHeader({ navigate }: { navigate?: (to: string) => void }) {
  const [openGroup, setOpenGroup] = useState<string | null>(null);
  const [mapOpen, setMapOpen] = useState(false);
  const [sticky, setSticky] = useState({ ready: false, show: false });
  const setMap = useCallback((o: boolean) => setMapOpen(o), []);

  useEffect(() => {
    const main = document.getElementById('main') ?? document.body;
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const next = stickyClasses(main.getBoundingClientRect().top);
        setSticky((old) => (old.ready === next.ready && old.show === next.show ? old : next));
      });
    };
    update();
    window.addEventListener('scroll', update, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', update);
    };
  }, []);

  // The page's own sticky parts (the pricing table's header) stand below this header while it
  // sticks, not under it: its height as --mk-sticky-top on the page (CSSOM, allowed by the CSP).
  const header = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const page = header.current?.parentElement;
    if (!page) return;
    page.style.setProperty('--mk-sticky-top', sticky.show ? `${header.current!.getBoundingClientRect().height}px` : '0px');
  }, [sticky.show]);

  return (
    <div ref={header} className={cx(s.mkSite, sticky.ready && s.stickyReady, sticky.show && s.stickyShow)} data-testid="marketing-header">
      <div className={s.mkSiteBar}>
        <nav aria-label="Site" className={s.mkSiteNav}>
          <ul className={s.mkDds}>
            {NAV.map((g) => (
              <Dropdown key={g.label} group={g} open={openGroup === g.label} setOpen={(o) => setOpenGroup(o ? g.label : null)} navigate={navigate} />
            ))}
          </ul>
        </nav>
        <UserMenu navigate={navigate} />
        <button type="button" className={s.mkSiteMenu} aria-expanded={mapOpen} aria-controls="mk-sitemap" onClick={() => setMapOpen(!mapOpen)}>
          {mapOpen ? 'Close menu' : 'Menu'}
        </button>
      </div>
      <SiteMap open={mapOpen} setOpen={setMap} navigate={navigate} />
    </div>
  );
}
