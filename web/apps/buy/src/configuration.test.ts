import { describe, expect, it } from 'vitest';
import { normalizeCatalog } from '@hangar/api-client';
import { catalogFixture } from '@hangar/api-client/testing';
import { addRegionFor, initialConfiguration, reduce, selectedCodes } from './configuration';

const catalog = normalizeCatalog(catalogFixture);

describe('initialConfiguration', () => {
  it('starts with Essential and the currency default region', () => {
    expect(initialConfiguration(catalog, 'USD')).toEqual({
      currency: 'USD', plan: 'pro_plus', includedRegion: 'included_geo_us', regions: [], addOns: [],
    });
    expect(initialConfiguration(catalog, 'GBP').includedRegion).toBe('included_geo_eu');
    expect(initialConfiguration(catalog, 'CAD').includedRegion).toBe('included_geo_ca');
  });
  it('takes plan, regions and add-ons from the addOns query', () => {
    const c = initialConfiguration(catalog, 'USD', ['basic_plus', 'add_geo_eu', 'logbook', 'unknown']);
    expect(selectedCodes(c)).toEqual(['basic_plus', 'included_geo_us', 'add_geo_eu', 'logbook']);
  });
  it('does not preselect an add-on the plan includes or is not sold with', () => {
    expect(initialConfiguration(catalog, 'USD', ['performance', 'syn_vis']).addOns).toEqual([]);
    expect(initialConfiguration(catalog, 'USD', ['basic_plus', 'syn_vis']).addOns).toEqual(['syn_vis']);
    expect(initialConfiguration(catalog, 'USD', ['basic_plus', 'active_navlog']).addOns).toEqual([]);
  });
});

describe('reduce', () => {
  const start = initialConfiguration(catalog, 'USD', ['syn_vis']);
  it('drops add-ons a newly selected plan already includes', () => {
    expect(start.addOns).toEqual(['syn_vis']);
    expect(reduce(start, { type: 'selectPlan', plan: 'performance' }, catalog).addOns).toEqual([]);
    expect(reduce(start, { type: 'selectPlan', plan: 'basic_plus' }, catalog).addOns).toEqual(['syn_vis']);
  });
  it('toggles regions and add-ons', () => {
    const once = reduce(start, { type: 'toggleRegion', code: 'add_geo_eu' }, catalog);
    expect(once.regions).toEqual(['add_geo_eu']);
    expect(reduce(once, { type: 'toggleRegion', code: 'add_geo_eu' }, catalog).regions).toEqual([]);
    expect(reduce(start, { type: 'toggleAddOn', code: 'logbook' }, catalog).addOns).toEqual(['syn_vis', 'logbook']);
  });
});

it('pairs included and extra regions', () => {
  expect(addRegionFor('included_geo_us')).toBe('add_geo_us');
});

