import { Link } from './Link';

const DESTINATIONS = [
  { href: '/pricing', title: 'Compare plans', text: 'Starter, Essential and Premium side by side.' },
  { href: '/buy', title: 'Buy a subscription', text: 'Pick a plan, regions and add-ons.' },
  { href: '/gift', title: 'Gift certificates', text: 'Give a year of flight planning.' },
  { href: '/account/allocation', title: 'Licence allocation', text: 'Assign licences across your organization.' },
];

export function HomePage({ navigate }: { navigate?: (to: string) => void }) {
  return (
    <div className="mk" data-remote="marketing">
      <section className="mk-hero">
        <h1>Flight planning for every pilot</h1>
        <p>Plans for individual pilots, flight departments, organizations and military crews.</p>
      </section>
      <nav aria-label="Store">
        <ul className="mk-cards">
          {DESTINATIONS.map((d) => (
            <li className="mk-card" key={d.href}>
              <h2>
                <Link href={d.href} navigate={navigate}>
                  {d.title}
                </Link>
              </h2>
              <p>{d.text}</p>
            </li>
          ))}
        </ul>
      </nav>
    </div>
  );
}
