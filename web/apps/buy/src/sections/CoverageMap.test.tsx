import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { MultiPolygon } from 'geojson';
import { CoverageMapView, type Outlines } from './CoverageMap';
import { regionKey } from './regionKey';

// The outlines projected (d3-geo's path generator called), by feature id.
const projected = vi.hoisted(() => [] as string[]);
vi.mock('d3-geo', async (importOriginal) => {
  const d3 = await importOriginal<typeof import('d3-geo')>();
  return {
    ...d3,
    geoPath: (...args: Parameters<typeof d3.geoPath>) => {
      const path = d3.geoPath(...args);
      return (f: { id?: string | number }) => {
        projected.push(String(f.id));
        return path(f as never);
      };
    },
  };
});

// A box as a d3-geo ring: clockwise on the sphere is the inside.
const box = (w: number, s: number, e: number, n: number): MultiPolygon => ({
  type: 'MultiPolygon',
  coordinates: [[[[w, s], [w, n], [e, n], [e, s], [w, s]]]],
});

const outlines: Outlines = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', id: 'land', properties: { name: 'Land' }, geometry: box(-170, -50, 170, 70) },
    { type: 'Feature', id: 'us', properties: { name: 'United States' }, geometry: box(-125, 25, -67, 49) },
    { type: 'Feature', id: 'eu', properties: { name: 'Europe' }, geometry: box(-10, 36, 30, 70) },
  ],
};

afterEach(() => {
  cleanup();
  projected.length = 0;
});

describe('CoverageMapView (issue 31 item 6)', () => {
  it('highlights the selected regions only, and lists them in words', async () => {
    render(<CoverageMapView outlines={outlines} regions={[{ key: 'eu', title: 'Europe' }]} />);
    const map = await screen.findByRole('img', { name: 'Coverage map: Europe highlighted' });
    const covered = map.querySelectorAll('path[data-region]');
    expect([...covered].map((p) => p.getAttribute('data-region'))).toEqual(['eu']);
    expect(covered[0]!.getAttribute('d')).toMatch(/^M/);
    expect(map.getAttribute('viewBox')).toBe('0 0 600 300');
    const list = screen.getByRole('list');
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Europe']);
  });

  // Issue 31: projecting every outline when the map appeared was a long task on a phone.
  it('projects only the outlines it draws, each once', async () => {
    const { rerender } = render(<CoverageMapView outlines={outlines} regions={[{ key: 'us', title: 'United States' }]} />);
    await screen.findByRole('img', { name: 'Coverage map: United States highlighted' });
    expect(projected.sort()).toEqual(['land', 'us']);
    rerender(<CoverageMapView outlines={outlines} regions={[{ key: 'us', title: 'United States' }, { key: 'eu', title: 'Europe' }]} />);
    expect(projected.sort()).toEqual(['eu', 'land', 'us']);
  });

  it('follows the selection', async () => {
    const { rerender } = render(<CoverageMapView outlines={outlines} regions={[{ key: 'us', title: 'United States' }]} />);
    rerender(<CoverageMapView outlines={outlines} regions={[{ key: 'us', title: 'United States' }, { key: 'eu', title: 'Europe' }]} />);
    const map = await screen.findByRole('img', { name: 'Coverage map: United States, Europe highlighted' });
    expect([...map.querySelectorAll('path[data-region]')].map((p) => p.getAttribute('data-region'))).toEqual(['us', 'eu']);
  });

  // The land is drawn a few polygons at a time; the result is the whole outline's path.
  it('draws the land in slices, the same path as at once', async () => {
    const two: Outlines = { ...outlines, features: [{ ...outlines.features[0]!, geometry: { type: 'MultiPolygon', coordinates: [...box(-170, -50, -20, 70).coordinates, ...box(0, -50, 170, 70).coordinates] } }] };
    // A slow phone: every polygon takes longer than a slice, so each waits for the next task.
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (clock += 10));
    try {
      render(<CoverageMapView outlines={two} regions={[]} />);
      expect(screen.queryByRole('img')).toBeNull();
    } finally {
      now.mockRestore();
    }
    const map = await screen.findByRole('img', { name: 'Coverage map: no region selected' });
    const d3 = await vi.importActual<typeof import('d3-geo')>('d3-geo');
    // The map's projection: equirectangular, no resampling (an edge is straight in longitude
    // and latitude, as GeoJSON's are, RFC 7946 §3.1.1).
    const whole = d3.geoPath(d3.geoEquirectangular().precision(0).fitSize([600, 300], { type: 'Sphere' }))(two.features[0]!);
    expect(map.querySelector('path')!.getAttribute('d')).toBe(whole);
  });

  it('reads the region key from both kinds of region code', () => {
    expect(regionKey('add_geo_eu')).toBe('eu');
    expect(regionKey('included_geo_us')).toBe('us');
    expect(regionKey('business_pro')).toBeUndefined();
  });
});
