import { Link } from './Link';
import { SiteHeader } from './SiteHeader';
import { BackgroundVideo, FeatureToggles, Slider, Tabs, ZoomImage } from './widgets';
import { ROUTE_MAP, WEATHER_MAP } from './art';
import s from './marketing.module.css';
import homeVideo from './media/home-video.webm';

const DESTINATIONS = [
  { href: '/pricing', title: 'Compare plans', text: 'Starter, Essential and Premium side by side.' },
  { href: '/buy', title: 'Buy a subscription', text: 'Pick a plan, regions and add-ons.' },
  { href: '/gift', title: 'Gift certificates', text: 'Give a year of flight planning.' },
  { href: '/account/allocation', title: 'Licence allocation', text: 'Assign licences across your organization.' },
];

export const SLIDES = [
  { title: 'Plan, brief and file in minutes', text: 'Routes, weather, NOTAMs and performance in one place.' },
  { title: 'Charts for every region', text: 'Add regions and chart coverages as you fly further.' },
  { title: 'Built for flight departments', text: 'Licences, aircraft and dispatch tools for the whole team.' },
];

const FEATURES = [
  { title: 'Weight and balance', text: 'Load your aircraft and see the envelope before every flight.' },
  { title: 'Runway analysis', text: 'Take-off and landing performance for the runway you will use.' },
  { title: 'Flight tracking', text: 'Follow your fleet live, on the web and in the app.' },
];

/**
 * The background video: a short generated WebM (VP9, no audio, ~60 KB) rendered by
 * scripts/make-home-video.sh from ffmpeg's own sources (no external media) and committed.
 * Imported as an asset, so the build copies it beside the remote's other assets and the
 * URL follows wherever the remote is served from.
 */
export const HOME_VIDEO_SRC: string = homeVideo;

export function HomePage({ navigate }: { navigate?: (to: string) => void }) {
  return (
    <div className={s.mk} data-remote="marketing">
      <SiteHeader navigate={navigate} />
      <section className={s.mkHero}>
        <BackgroundVideo src={HOME_VIDEO_SRC} path="/" />
        <h1>Flight planning for every pilot</h1>
        <p>Plans for individual pilots, flight departments, organizations and military crews.</p>
      </section>
      <Slider slides={SLIDES} label="Highlights" />
      <nav aria-label="Store">
        <ul className={s.mkCards}>
          {DESTINATIONS.map((d) => (
            <li className={s.mkCard} key={d.href}>
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
      <h2>Who it is for</h2>
      <Tabs
        label="Who it is for"
        tabs={[
          { id: 'pilots', label: 'Pilots', content: <p>One licence covers two iPads and an iPhone, with the regions you fly.</p> },
          { id: 'departments', label: 'Flight departments', content: <p>Business plans priced by licence count, with dispatch and runway analysis.</p> },
          { id: 'military', label: 'Military', content: <p>Military plans for verified military e-mail addresses.</p> },
        ]}
      />
      <h2>See it</h2>
      <div className={s.mkGallery}>
        <ZoomImage src={ROUTE_MAP} alt="A route drawn across a map" caption="Route planning" />
        <ZoomImage src={WEATHER_MAP} alt="Weather areas on a map" caption="Weather briefing" />
      </div>
      <h2>Features</h2>
      <FeatureToggles features={FEATURES} />
    </div>
  );
}
