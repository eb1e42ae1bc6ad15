// The store's outside links for config.json (tools/assemble-site.mjs): the App Store listing
// (HANGAR_APP_STORE_URL, the success page's "Download the app"), the sales address
// (HANGAR_SALES_EMAIL, /buy's "contact sales") and the legal pages named where the buyer
// pays (HANGAR_TERMS_URL, HANGAR_PRIVACY_URL, HANGAR_REFUND_POLICY_URL: an https:// URL or
// a path on the store). Customers follow them, so, as the services'
// required settings (internal/platform/config), they have documented values only in
// development mode (HANGAR_DEV_MODE=true: make dev, the e2e run); any other build refuses
// to assemble without them, with a placeholder (a reserved example domain or the
// development value), or with a malformed one.

/** The development values (docs/web.md "Runtime configuration"). */
export const DEV_LINKS = Object.freeze({
  appStore: 'https://apps.apple.com/app/hangar',
  salesEmail: 'sales@hangar.example',
  terms: 'https://hangar.example/legal/terms-of-sale',
  privacy: '/privacy-policy',
  refunds: 'https://hangar.example/legal/refunds',
});

const SETTINGS = [
  ['appStore', 'HANGAR_APP_STORE_URL', 'the App Store listing, e.g. https://apps.apple.com/<country>/app/<name>/id<number>'],
  ['salesEmail', 'HANGAR_SALES_EMAIL', "the sales team's address (checkout's CHECKOUT_SALES_CONTACT)"],
  ['terms', 'HANGAR_TERMS_URL', 'the terms of sale the buyer accepts at Pay (an https:// URL or a path on the store)'],
  ['privacy', 'HANGAR_PRIVACY_URL', 'the privacy policy named at Pay (an https:// URL or a path on the store, e.g. /privacy-policy)'],
  ['refunds', 'HANGAR_REFUND_POLICY_URL', 'the refund and cancellation policy named at Pay (an https:// URL or a path on the store)'],
];

/** The legal pages: an https:// URL, or an absolute path on the store (not //host). */
const PAGE_KEYS = ['terms', 'privacy', 'refunds'];

/** HANGAR_DEV_MODE as the Go services read it: a boolean; unset is off for a build. */
export function devMode(env) {
  const raw = (env.HANGAR_DEV_MODE ?? '').trim().toLowerCase();
  if (raw === '') return false;
  if (['1', 't', 'true'].includes(raw)) return true;
  if (['0', 'f', 'false'].includes(raw)) return false;
  throw new Error(`HANGAR_DEV_MODE=${JSON.stringify(env.HANGAR_DEV_MODE)} is not a boolean`);
}

const RESERVED = /(^|\.)(example|test|invalid|localhost)$|(^|\.)example\.(com|net|org)$/i;

function problem(key, value, dev) {
  let host;
  if (PAGE_KEYS.includes(key) && /^\/(?!\/)\S*$/.test(value)) {
    // A page of the store itself: no host to be a placeholder.
    return undefined;
  }
  if (key === 'appStore' || PAGE_KEYS.includes(key)) {
    let u;
    try {
      u = new URL(value);
    } catch {
      return 'is not a URL';
    }
    if (u.protocol !== 'https:' || u.hostname === '') return 'is not an https:// URL';
    host = u.hostname;
  } else {
    // An address for a mailto: link: local@domain, the domain with a dot, no display name.
    const m = /^[^\s@<>()",;:]+@([^\s@<>()",;:]+\.[^\s@<>()",;:.]+)$/.exec(value);
    if (!m) return 'is not an e-mail address';
    host = m[1];
  }
  if (!dev && (value === DEV_LINKS[key] || RESERVED.test(host))) return 'is a placeholder (the development value or a reserved example domain)';
  return undefined;
}

/** The config.json "links" for env (process.env); throws naming every unset or bad setting. */
export function siteLinks(env) {
  const dev = devMode(env);
  const links = {};
  const errors = [];
  for (const [key, name, what] of SETTINGS) {
    const value = (env[name] ?? '').trim();
    if (value === '') {
      if (dev) links[key] = DEV_LINKS[key];
      else errors.push(`${name} must be set: ${what} (no default outside development mode; HANGAR_DEV_MODE=true only in development)`);
      continue;
    }
    const p = problem(key, value, dev);
    if (p) errors.push(`${name}=${JSON.stringify(value)} ${p}`);
    else links[key] = value;
  }
  if (errors.length > 0) throw new Error(`assemble-site: ${errors.join('; ')}`);
  return links;
}
