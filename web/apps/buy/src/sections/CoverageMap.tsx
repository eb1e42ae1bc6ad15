import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { geoEquirectangular, geoPath } from 'd3-geo';
import type { Feature, FeatureCollection, MultiPolygon } from 'geojson';
import s from '../buy.module.css';

/** The outlines GET /buy/map/api/resources answers: a Feature per region key, and "land". */
export type Outlines = FeatureCollection<MultiPolygon, { name: string }>;

export interface CoveredRegion {
  /** The region key: add_geo_<key> / included_geo_<key>. */
  key: string;
  title: string;
}

// Spec 001 §9: 300 px high, the whole world, the covered regions a green overlay at half
// opacity with line width 2. The viewBox is the world at 2:1, scaled to the width.
const WIDTH = 600;
const HEIGHT = 300;

/** The map itself, drawn from outlines already loaded (unit tests give them directly). */
export function CoverageMapView({ outlines, regions }: { outlines: Outlines; regions: readonly CoveredRegion[] }) {
  // Each outline is projected when first drawn: the land and the chosen regions, not all ten
  // (projecting every outline was a long task on a phone when the map appeared, issue 31).
  const pathOf = useMemo(() => {
    // precision(0): no adaptive resampling. The equirectangular projection is linear in
    // longitude and latitude, so resampling adds no point (the paths are byte for byte the
    // same) but cost a third to half of the projection's time on a cold page.
    const projection = geoEquirectangular().precision(0).fitSize([WIDTH, HEIGHT], { type: 'Sphere' });
    const path = geoPath(projection);
    const features = new Map<string, Feature<MultiPolygon, { name: string }>>();
    for (const f of outlines.features as Feature<MultiPolygon, { name: string }>[]) {
      if (f.id !== undefined) features.set(String(f.id), f);
    }
    const drawn = new Map<string, string>();
    const draw = (id: string): string => {
      let d = drawn.get(id);
      if (d === undefined) {
        const f = features.get(id);
        d = f ? (path(f) ?? '') : '';
        drawn.set(id, d);
      }
      return d;
    };
    /** The outline's polygons, each projected on its own (a MultiPolygon's path is theirs in turn). */
    const parts = (id: string): Array<() => string> =>
      (features.get(id)?.geometry.coordinates ?? []).map((coordinates) => () => path({ ...features.get(id)!, geometry: { type: 'Polygon', coordinates } }) ?? '');
    return Object.assign(draw, { parts });
  }, [outlines]);
  const land = useLand(outlines, pathOf);
  const names = regions.map((r) => r.title);
  const label = names.length ? `Coverage map: ${names.join(', ')} highlighted` : 'Coverage map: no region selected';
  if (land === undefined) return <div className={s.buyMapSvg} aria-hidden="true" />;
  return (
    <figure className={s.buyMap}>
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="xMidYMid meet" className={s.buyMapSvg} data-testid="coverage-map">
        <rect width={WIDTH} height={HEIGHT} className={s.buyMapSea} />
        <path d={land} className={s.buyMapLand} />
        {regions.map((r) => {
          const d = pathOf(r.key);
          return d ? <path key={r.key} d={d} className={s.buyMapCovered} data-region={r.key} /> : null;
        })}
      </svg>
      <figcaption className={s.buyHint}>
        {names.length ? (
          <>
            Shown in green:{' '}
            <ul className={s.buyMapList}>
              {names.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          </>
        ) : (
          'No region selected.'
        )}
      </figcaption>
    </figure>
  );
}

/**
 * The land outline (half the data, the longest projection) drawn a few polygons at a time,
 * yielding to the browser between slices, so the map's arrival is no long task on a phone
 * (issue 31); undefined until done.
 */
function useLand(outlines: Outlines, pathOf: { parts: (id: string) => Array<() => string> }): string | undefined {
  const [land, setLand] = useState<{ outlines: Outlines; d: string } | undefined>();
  useEffect(() => {
    const todo = pathOf.parts('land');
    const done: string[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slice = () => {
      const until = performance.now() + 8;
      while (done.length < todo.length && performance.now() < until) done.push(todo[done.length]!());
      if (done.length < todo.length) timer = setTimeout(slice, 0);
      else setLand({ outlines, d: done.join('') });
    };
    // The first slice too is a task of its own, not part of the commit that mounted the map.
    timer = setTimeout(slice, 0);
    return () => clearTimeout(timer);
  }, [outlines, pathOf]);
  return land?.outlines === outlines ? land.d : undefined;
}

async function loadOutlines(): Promise<Outlines> {
  const res = await fetch('/buy/map/api/resources', { headers: { Accept: 'application/geo+json' } });
  if (!res.ok) throw new Error(`map outlines: ${res.status}`);
  return (await res.json()) as Outlines;
}

/** The Regions section's coverage map; its own chunk (d3-geo), loaded lazily by the page. */
export default function CoverageMap({ regions }: { regions: readonly CoveredRegion[] }) {
  // The outlines only change with a release (the server caches them a day).
  const q = useQuery({ queryKey: ['coverage-map'], queryFn: loadOutlines, staleTime: Infinity, retry: 1 });
  if (!q.data) return <div className={s.buyMapSvg} aria-hidden="true" />;
  return <CoverageMapView outlines={q.data} regions={regions} />;
}
