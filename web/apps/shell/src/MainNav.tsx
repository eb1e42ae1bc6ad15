import { NavLink } from 'react-router-dom';
import { NAV_LINKS } from './routes';
import s from './shell.module.css';

/** The shell's navigation bar, for the pages that do not bring their own (see `ownsSiteNav`). */
export function MainNav() {
  return (
    <nav aria-label="Main">
      <ul className={s.shellNav}>
        {NAV_LINKS.map((l) => (
          <li key={l.to}>
            <NavLink to={l.to} end={l.to !== '/buy'}>
              {l.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
