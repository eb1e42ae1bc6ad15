import { useState } from 'react';
import { bigChange } from './sections/Quantity';
import { useEvent } from './render';

/**
 * The subscription's licence count, from the renewal's first preview: a large step up from
 * it is confirmed before Pay (issue 45: an owner going from 5 to 8 paid for 58). A new cart
 * has no count to step from. Set while rendering, once the renewal is in.
 */
export function useQuantityConfirm(renewal: boolean, licensed: boolean, quantity: number) {
  const [start, setStart] = useState<{ n: number; renewal: boolean } | undefined>();
  if (!start && renewal && licensed && quantity > 0) setStart({ n: quantity, renewal: true });
  const [confirmed, setConfirmed] = useState(0);
  const unconfirmed = start !== undefined && licensed && bigChange(start.n, quantity) && confirmed !== quantity;
  const onConfirmed = useEvent((checked: boolean) => setConfirmed(checked ? quantity : 0));
  return { unconfirmed, confirm: start ? { from: start.n, renewal: start.renewal, checked: !unconfirmed, onChange: onConfirmed } : undefined };
}

/**
 * An owner whose licences are allocated to users, switching the business to an individual
 * plan, is told what happens to those users first (issue 31: not a word about them). Taken
 * from the business cart's preview when the switch is chosen; the downgrade cart has none.
 * The warning stays once checkout has answered with the individual cart (the switch is
 * adopted, businessDowngrade is false again) and goes when the cart is a business's again.
 * Reset while rendering, not in an effect: an effect of the render that adopted the business
 * cart could run after the click that set the flag (the price answer renders in a
 * transition, whose effects React may flush late) and wipe it.
 */
export function useDowngradeWarning(isBusiness: boolean, businessDowngrade: boolean) {
  const [dropsUsers, setDropsUsers] = useState(false);
  // The switch was chosen: the cart is the business's downgrade until it is a business's again.
  const [switched, setSwitched] = useState(false);
  const [businessCart, setBusinessCart] = useState(isBusiness);
  if (businessCart !== isBusiness) {
    setBusinessCart(isBusiness);
    if (isBusiness) {
      setDropsUsers(false);
      setSwitched(false);
    }
  }
  const downgrade = businessDowngrade || !isBusiness;
  return {
    warning: dropsUsers && downgrade,
    /** The cart is a business downgrade: no renewal box (spec 000 §2, section 4). */
    downgraded: businessDowngrade || (switched && !isBusiness),
    /** The buyer chose the switch; drops: the business's licences are allocated to users. */
    switchToIndividual: useEvent((drops: boolean) => {
      setDropsUsers(drops);
      setSwitched(true);
    }),
  };
}
