/**
 * Chromium's flags for every browser the e2e run starts (Playwright's and Lighthouse's):
 * headless and offline, as shared/design/toolchain.md gives them. Without the
 * background-networking flags Chromium's own connections are refused by the closed network.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
