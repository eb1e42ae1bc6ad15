import { useEffect, useRef, useState } from 'react';
import type { SectionShell } from './sections/Choices';
import type { BuyQuery } from './query';

/** Sections expanded by default (spec 000 §2). */
const DEFAULT_EXPANDED = ['plans', 'regions', 'addOns'];

/**
 * Which sections are expanded: the defaults and the address's (?section=), each toggled by
 * the buyer. The address's first section is scrolled to once the first price is in.
 */
export function useSections(query: BuyQuery, note: string | undefined, priced: boolean) {
  const [expanded, setExpanded] = useState<string[]>(() => [
    ...new Set([...DEFAULT_EXPANDED, ...query.sections, ...(query.military ? ['jeppesen'] : []), ...(query.hjopaBundle ? ['jetMaker'] : [])]),
  ]);
  // One toggle per section for the page's life, so a memoized section keeps its props.
  const toggles = useRef(new Map<string, (open: boolean) => void>());
  const onExpanded = (id: string) => {
    let f = toggles.current.get(id);
    if (!f) {
      f = (open: boolean) => setExpanded((xs) => (open ? [...xs, id] : xs.filter((x) => x !== id)));
      toggles.current.set(id, f);
    }
    return f;
  };
  const shell = (id: string): SectionShell => ({ expanded: expanded.includes(id), onExpandedChange: onExpanded(id), note });
  const scrolled = useRef(false);
  useEffect(() => {
    const first = query.sections[0];
    if (scrolled.current || !first || !priced) return;
    scrolled.current = true;
    document.getElementById(`section-${first}`)?.scrollIntoView?.({ block: 'start' });
  }, [query.sections, priced]);
  return { shell, onExpanded };
}
