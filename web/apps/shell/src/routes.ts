import { AVAILABLE_PLANS_PATH } from '@hangar/api-client';
import type { RemoteName } from './runtime-config';

export interface ShellRoute {
  path: string;
  remote: RemoteName;
  /** Page title; page views are logged with it. */
  title: string;
  /**
   * The API answers the page renders first, preloaded by the shell at start so they do not
   * wait for the remote's code (the remote's own request of the same URL takes the preload).
   */
  data?: readonly string[];
}

const CATALOG = [AVAILABLE_PLANS_PATH] as const;

/** The pages of the brief and the remote that renders each. */
export const ROUTES: readonly ShellRoute[] = [
  { path: '/', remote: 'marketing', title: 'Flight planning subscriptions' },
  { path: '/pricing', remote: 'marketing', title: 'Compare plans', data: CATALOG },
  { path: '/privacy-policy', remote: 'marketing', title: 'Privacy policy' },
  { path: '/about/privacy', remote: 'marketing', title: 'Privacy policy' },
  { path: '/buy', remote: 'buy', title: 'Buy a subscription', data: CATALOG },
  { path: '/buy/success', remote: 'buy', title: 'Your receipt' },
  { path: '/buy/sales-mode', remote: 'buy', title: 'Sales mode' },
  { path: '/buy/military', remote: 'buy', title: 'Military plans' },
  { path: '/buy/military_intl', remote: 'buy', title: 'Military plans' },
  { path: '/buy/association', remote: 'buy', title: 'Association members' },
  // Add-ons (and a licence quantity) in the path, spec 000 §2: /buy/flarm,synthetic_vision/3.
  // The named routes above rank first, so /buy/success is never read as an add-on.
  { path: '/buy/:addOns', remote: 'buy', title: 'Buy a subscription', data: CATALOG },
  { path: '/buy/:addOns/:quantity', remote: 'buy', title: 'Buy a subscription', data: CATALOG },
  { path: '/gift', remote: 'gift', title: 'Gift certificates' },
  { path: '/gift/*', remote: 'gift', title: 'Gift certificates' },
  { path: '/product/cart/:cartId', remote: 'oneoff', title: 'Complete your order' },
  { path: '/product/cart-create', remote: 'oneoff', title: 'Create a one-off cart' },
  { path: '/account/allocation', remote: 'allocation', title: 'Licence allocation' },
  { path: '/account/set-password', remote: 'account', title: 'Choose your password' },
  { path: '/account/forgot-password', remote: 'account', title: 'Forgot password' },
  { path: '/account/invitation', remote: 'account', title: 'Invitation' },
  { path: '/account/members', remote: 'account', title: 'Invite members' },
  { path: '/account', remote: 'account', title: 'Your account' },
];

/** What each remote is called in loading and error messages. */
export const REMOTE_LABELS: Readonly<Record<RemoteName, string>> = {
  buy: 'buy page',
  gift: 'gift certificates',
  oneoff: 'order page',
  allocation: 'licence allocation',
  marketing: 'page',
  account: 'account page',
};

export const NAV_LINKS = [
  { to: '/pricing', label: 'Pricing' },
  { to: '/buy', label: 'Buy' },
  { to: '/gift', label: 'Gift certificates' },
  { to: '/account/allocation', label: 'Licence allocation' },
  { to: '/account', label: 'Account' },
] as const;

/**
 * Remotes whose pages render the site's navigation bar themselves (marketing's Site bar links
 * every NAV_LINKS destination): the shell leaves its Main bar out there, and offers it only
 * when such a remote fails to load.
 */
export function ownsSiteNav(remote: RemoteName): boolean {
  return remote === 'marketing';
}

export const SITE_NAME = 'Hangar';
