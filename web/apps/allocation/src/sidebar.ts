// The allocation panel's sidebar (spec 001 §3 Sidebar, §4 Sidebar, §9): a cart section
// (what is selected for assignment) over a product section (the licences bought).
//
// - Showing the cart: cart 65 %, product 35 % of the full height.
// - Hiding the cart: the cart collapses to its header ('auto'), the product takes the
//   full height. A success view does the same.
// - The product collapsed: 30 px; the cart then takes the full height.
// - Full height is the panel height minus 40 px; when the panel is under 700 px it is the
//   window height minus 83 px instead (the panel then scrolls with the page).

export const CART_PARTIAL = 0.65;
export const PRODUCT_PARTIAL = 0.35;
export const PRODUCT_COLLAPSED_PX = 30;
export const FULL_HEIGHT_MARGIN_PX = 40;
export const SMALL_PANEL_PX = 700;
export const SMALL_PANEL_WINDOW_OFFSET_PX = 83;

export interface SidebarState {
  showCart: boolean;
  showProduct: boolean;
  success: boolean;
  windowHeight: number;
  allocationPanelHeight: number;
}

export interface SectionHeights {
  /** Pixels, or 'auto' for a section collapsed to its header. */
  cart: number | 'auto';
  product: number | 'auto';
  full: number;
}

export function fullHeight(windowHeight: number, panelHeight: number): number {
  const h = panelHeight < SMALL_PANEL_PX ? windowHeight - SMALL_PANEL_WINDOW_OFFSET_PX : panelHeight - FULL_HEIGHT_MARGIN_PX;
  return Math.max(Math.round(h), 0);
}

export function sectionHeights(s: SidebarState): SectionHeights {
  const full = fullHeight(s.windowHeight, s.allocationPanelHeight);
  if (s.success || !s.showCart) return { cart: 'auto', product: full, full };
  if (!s.showProduct) return { cart: Math.max(full - PRODUCT_COLLAPSED_PX, 0), product: PRODUCT_COLLAPSED_PX, full };
  return { cart: Math.round(full * CART_PARTIAL), product: Math.round(full * PRODUCT_PARTIAL), full };
}

export const css = (h: number | 'auto') => (h === 'auto' ? 'auto' : `${h}px`);
