// node --test tools/ (scripts/web-test.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEV_LINKS, siteLinks } from './site-links.mjs';

const real = {
  HANGAR_APP_STORE_URL: 'https://apps.apple.com/ie/app/hangar-flight/id1234567890',
  HANGAR_SALES_EMAIL: 'sales@hangar-avionics.ie',
  HANGAR_TERMS_URL: 'https://hangar-avionics.ie/legal/terms',
  HANGAR_PRIVACY_URL: '/privacy-policy',
  HANGAR_REFUND_POLICY_URL: 'https://hangar-avionics.ie/legal/refunds',
};
const realLinks = { appStore: real.HANGAR_APP_STORE_URL, salesEmail: real.HANGAR_SALES_EMAIL, terms: real.HANGAR_TERMS_URL, privacy: real.HANGAR_PRIVACY_URL, refunds: real.HANGAR_REFUND_POLICY_URL };

// Issue 31: an assembled site fell back to placeholder links (sales@hangar.example) in any
// deployment that did not set them.
test('outside development mode the links are required, naming each', () => {
  assert.throws(() => siteLinks({}), /HANGAR_APP_STORE_URL must be set.*HANGAR_SALES_EMAIL must be set/);
  assert.throws(() => siteLinks({ HANGAR_DEV_MODE: 'false', HANGAR_APP_STORE_URL: real.HANGAR_APP_STORE_URL }), (e) => /HANGAR_SALES_EMAIL must be set/.test(e.message) && !/HANGAR_APP_STORE_URL/.test(e.message));
  assert.deepEqual(siteLinks(real), realLinks);
});

// Issue 45: nothing at Pay named the terms, privacy or refund policy the buyer agrees to.
test('the legal pages named at Pay are required outside development mode', () => {
  for (const name of ['HANGAR_TERMS_URL', 'HANGAR_PRIVACY_URL', 'HANGAR_REFUND_POLICY_URL']) {
    const env = { ...real };
    delete env[name];
    assert.throws(() => siteLinks(env), new RegExp(`${name} must be set`), name);
  }
  for (const [name, bad] of [
    ['HANGAR_TERMS_URL', 'http://hangar-avionics.ie/terms'],
    ['HANGAR_TERMS_URL', '//evil.ie/terms'],
    ['HANGAR_TERMS_URL', 'javascript:alert(1)'],
    ['HANGAR_REFUND_POLICY_URL', DEV_LINKS.refunds],
    ['HANGAR_PRIVACY_URL', 'https://shop.example.com/privacy'],
  ]) {
    assert.throws(() => siteLinks({ ...real, [name]: bad }), new RegExp(`${name}=`), `${name}=${bad}`);
  }
});

test('they are validated, and placeholders refused outside development mode', () => {
  for (const [name, bad] of [
    ['HANGAR_APP_STORE_URL', 'http://apps.apple.com/app/hangar'],
    ['HANGAR_APP_STORE_URL', 'apps.apple.com/app/hangar'],
    ['HANGAR_APP_STORE_URL', DEV_LINKS.appStore],
    ['HANGAR_SALES_EMAIL', 'sales'],
    ['HANGAR_SALES_EMAIL', 'Sales <sales@hangar-avionics.ie>'],
    ['HANGAR_SALES_EMAIL', 'sales@hangar.example'],
    ['HANGAR_SALES_EMAIL', 'sales@shop.example.com'],
  ]) {
    assert.throws(() => siteLinks({ ...real, [name]: bad }), new RegExp(`${name}=`), `${name}=${bad}`);
  }
});

test('development mode has the documented values and takes set ones', () => {
  assert.deepEqual(siteLinks({ HANGAR_DEV_MODE: 'true' }), DEV_LINKS);
  assert.deepEqual(siteLinks({ HANGAR_DEV_MODE: '1', HANGAR_SALES_EMAIL: 'sales@hangar.test' }), { ...DEV_LINKS, salesEmail: 'sales@hangar.test' });
  assert.throws(() => siteLinks({ HANGAR_DEV_MODE: 'true', HANGAR_APP_STORE_URL: 'ftp://x.ie' }), /HANGAR_APP_STORE_URL=/);
  assert.throws(() => siteLinks({ HANGAR_DEV_MODE: 'maybe' }), /HANGAR_DEV_MODE/);
});
