import type { Preview } from './hooks';
import { FIELD_OF, SECTION_OF } from './messages';
import { useStable } from './render';

const NONE: never[] = [];

export interface ErrorState {
  /** The buyer chose something (the address's and the server's choices do not count). */
  chosen: boolean;
  /** Pay was clicked. */
  attempted: boolean;
  submitErrors: readonly string[];
  cardErrors: readonly string[];
}

/** What the page shows as wrong: in the summary, and beside the field or section it is about. */
export function useBuyErrors(p: Preview | undefined, st: ErrorState) {
  const codeErrors = useStable((p?.codeErrors ?? []).map((e) => e.message ?? '').filter(Boolean));
  const selectionErrors = [...(p?.planErrors ?? []), ...(st.chosen || st.attempted ? (p?.selectionErrors ?? []) : [])];
  // What the preview says is wrong with the cart is shown as soon as it answers (issue 45: "No
  // region(s) selected." waited for Pay, after the card was typed); only what belongs to a
  // field the buyer has yet to fill waits for the first Pay.
  const previewErrors = (p?.errors ?? []).filter((e) => st.attempted || !FIELD_OF[e]);
  const regionErrors = useStable(previewErrors.filter((e) => SECTION_OF[e] === 'regions'));
  const shown = [...new Set([...selectionErrors, ...codeErrors, ...previewErrors, ...st.submitErrors])];
  const ofField: Record<string, string[]> = {};
  for (const e of shown) {
    const f = FIELD_OF[e];
    if (f) (ofField[f] ??= []).push(e);
  }
  if (st.cardErrors.length > 0) ofField.card = [...new Set([...(ofField.card ?? []), ...st.cardErrors])];
  const fieldErrors = useStable(ofField);
  const childMessage = (p?.errorCodes ?? []).includes('CHILD_ACCOUNT_PURCHASE') ? p?.planErrors?.[0] : undefined;
  return {
    codeErrors,
    regionErrors,
    shown,
    fieldErrors,
    childMessage,
    /** The plan section's own error: a child account's refusal. */
    planError: selectionErrors.length > 0 ? childMessage : undefined,
    of: (field: string): string[] => fieldErrors[field] ?? NONE,
  };
}
