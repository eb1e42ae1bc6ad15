import type { Dispatch } from 'react';
import type { WirePromoInfoRequirement } from '@hangar/api-client';
import { toWire, type Action, type Configuration } from './configuration';
import { useEvent } from './render';

/**
 * The promo box's "Apply": checkout says whether the code applies to this cart and whether it
 * is a gift certificate; an applied code joins the cart (the preview that follows shows its
 * line), a refused one answers its message and any notice it asks for. The answer is the
 * message to show under the field, or undefined.
 */
export function useCodeEntry(config: Configuration, codes: string[], dispatch: Dispatch<Action>, onNotice: (notice: WirePromoInfoRequirement) => void) {
  return useEvent(async (code: string): Promise<string | undefined> => {
    const c = code.trim();
    if (!c || /^x+$/i.test(c) || c.toUpperCase() === 'PROMO CODE') return undefined;
    if (codes.some((x) => x.toLowerCase() === c.toLowerCase())) return 'Code already used.';
    let check;
    try {
      const { validatePromo } = await import('./submit');
      check = await validatePromo(c, toWire(config, { cartId: '', counter: 0 }));
    } catch (e) {
      return e instanceof Error && e.message ? e.message : 'The code could not be checked; try again.';
    }
    if (check.status !== 'ok') {
      const notice = check.promoInfoRequirements?.[0];
      if (notice) onNotice(notice);
      return check.message || 'This code is not valid.';
    }
    dispatch({ type: 'addCode', code: check.code || c, kind: check.kind === 'gift' ? 'gift' : 'promo' });
    return undefined;
  });
}
