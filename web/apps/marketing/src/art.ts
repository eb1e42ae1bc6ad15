/** Small inline illustrations (no image assets to fetch): SVG data URIs. */
function svg(body: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 200">${body}</svg>`)}`;
}

export const ROUTE_MAP = svg(
  '<rect width="320" height="200" fill="#dfeef9"/><path d="M0 150 C60 120 90 170 150 140 S260 90 320 110" fill="none" stroke="#7fb3d5" stroke-width="18"/>' +
    '<path d="M40 160 L120 70 L210 95 L280 40" fill="none" stroke="#c0392b" stroke-width="4" stroke-dasharray="10 6"/>' +
    '<circle cx="40" cy="160" r="7" fill="#0d2a4a"/><circle cx="280" cy="40" r="7" fill="#0d2a4a"/>',
);

export const WEATHER_MAP = svg(
  '<rect width="320" height="200" fill="#eef4e8"/><ellipse cx="110" cy="90" rx="80" ry="45" fill="#9ccc65" opacity=".7"/>' +
    '<ellipse cx="210" cy="120" rx="70" ry="40" fill="#ffca28" opacity=".7"/><ellipse cx="230" cy="115" rx="30" ry="18" fill="#e53935" opacity=".7"/>',
);
