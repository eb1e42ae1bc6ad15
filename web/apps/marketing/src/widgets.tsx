import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Dialog, cx } from '@hangar/ui';
import { nextAdvanceDelay, showsHomeVideo, stepSlide, videoVisible } from './behaviour';
import s from './marketing.module.css';

export interface Slide {
  title: string;
  text: string;
}

/**
 * The home slider: advances every 5 s; an arrow click moves at once and pauses the
 * rotation for 4 s. Rotation also stops while the pointer or focus is inside, and the
 * Pause button stops it for good (a moving region must be stoppable).
 */
export function Slider({ slides, label }: { slides: Slide[]; label: string }) {
  const [index, setIndex] = useState(0);
  const [manualAt, setManualAt] = useState<number | undefined>(undefined);
  const [held, setHeld] = useState(false);
  const [paused, setPaused] = useState(false);
  const id = useId();

  useEffect(() => {
    if (held || paused || slides.length < 2) return;
    const t = setTimeout(() => setIndex((i) => stepSlide(i, 1, slides.length)), nextAdvanceDelay(manualAt, Date.now()));
    return () => clearTimeout(t);
  }, [index, manualAt, held, paused, slides.length]);

  const go = (delta: number) => {
    setIndex((i) => stepSlide(i, delta, slides.length));
    setManualAt(Date.now());
  };
  const slide = slides[index]!;
  return (
    <section
      className={s.mkSlider}
      aria-roledescription="carousel"
      aria-label={label}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={(e) => !e.currentTarget.contains(e.relatedTarget as Node | null) && setHeld(false)}
    >
      <div
        className={s.mkSlide}
        id={id}
        role="group"
        aria-roledescription="slide"
        aria-label={`${index + 1} of ${slides.length}`}
        aria-live={held || paused ? 'polite' : 'off'}
        data-testid="slide"
      >
        <h2>{slide.title}</h2>
        <p>{slide.text}</p>
      </div>
      <div className={s.mkSliderControls}>
        <button type="button" aria-controls={id} aria-label="Previous slide" onClick={() => go(-1)}>
          ‹
        </button>
        <button type="button" aria-controls={id} onClick={() => setPaused(!paused)}>
          {paused ? 'Play' : 'Pause'}
        </button>
        <button type="button" aria-controls={id} aria-label="Next slide" onClick={() => go(1)}>
          ›
        </button>
      </div>
    </section>
  );
}

export interface Tab {
  id: string;
  label: string;
  content: ReactNode;
}

/** Tabs: arrow keys move between tabs (and select), Home and End jump. */
export function Tabs({ tabs, label }: { tabs: Tab[]; label: string }) {
  const [active, setActive] = useState(0);
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const base = useId();
  const select = (i: number) => {
    const n = (i + tabs.length) % tabs.length;
    setActive(n);
    refs.current[n]?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const keys: Record<string, number> = { ArrowRight: active + 1, ArrowLeft: active - 1, Home: 0, End: tabs.length - 1 };
    if (e.key in keys) {
      e.preventDefault();
      select(keys[e.key]!);
    }
  };
  return (
    <div className={s.mkTabs}>
      <div role="tablist" aria-label={label} onKeyDown={onKey}>
        {tabs.map((t, i) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={i === active}
            aria-controls={`${base}-panel-${t.id}`}
            tabIndex={i === active ? 0 : -1}
            onClick={() => setActive(i)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {tabs.map((t, i) => (
        <div key={t.id} role="tabpanel" id={`${base}-panel-${t.id}`} aria-labelledby={`${base}-tab-${t.id}`} hidden={i !== active} tabIndex={0}>
          {t.content}
        </div>
      ))}
    </div>
  );
}

/** A zoomable image: activating it opens the full-size picture in a dialog. */
export function ZoomImage({ src, alt, caption }: { src: string; alt: string; caption: string }) {
  const [open, setOpen] = useState(false);
  return (
    <figure className={s.mkZoom}>
      <button type="button" className={s.mkZoomButton} onClick={() => setOpen(true)} aria-label={`Zoom: ${alt}`}>
        <img src={src} alt={alt} width={320} height={200} />
      </button>
      <figcaption>{caption}</figcaption>
      <Dialog open={open} title={caption} onClose={() => setOpen(false)}>
        <img className={s.mkZoomFull} src={src} alt={alt} />
      </Dialog>
    </figure>
  );
}

export interface Feature {
  title: string;
  text: string;
}

/** Feature toggles: each feature's details open and close in place. */
export function FeatureToggles({ features }: { features: Feature[] }) {
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const base = useId();
  return (
    <ul className={s.mkFeatures}>
      {features.map((f, i) => (
        <li key={f.title}>
          <h3>
            <button type="button" aria-expanded={!!open[f.title]} aria-controls={`${base}-${i}`} onClick={() => setOpen((o) => ({ ...o, [f.title]: !o[f.title] }))}>
              {f.title}
            </button>
          </h3>
          <p id={`${base}-${i}`} hidden={!open[f.title]}>
            {f.text}
          </p>
        </li>
      ))}
    </ul>
  );
}

/**
 * The home page's background video: only on the home page at 1025 px or wider (otherwise
 * it is not in the page at all), muted and looping, visible from 1 % of its length and
 * faded out from 98 %. Decorative: hidden from assistive technology.
 */
export function BackgroundVideo({ src, path }: { src: string; path: string }) {
  const [wide, setWide] = useState(() => typeof window !== 'undefined' && showsHomeVideo(path, window.innerWidth));
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const onResize = () => setWide(showsHomeVideo(path, window.innerWidth));
    onResize();
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, [path]);
  if (!wide || !src) return null;
  return (
    <video
      className={cx(s.mkVideo, visible && s.mkVideoVisible)}
      src={src}
      autoPlay
      muted
      loop
      playsInline
      aria-hidden="true"
      data-testid="home-video"
      onTimeUpdate={(e) => setVisible(videoVisible(e.currentTarget.currentTime, e.currentTarget.duration))}
    />
  );
}
