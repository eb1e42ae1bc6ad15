import ui from './ui.module.css';
import { useId, useRef, useState, type ReactNode } from 'react';

export interface SectionBlockProps {
  /** Stable id, e.g. 'plans', 'regions', 'addOns' (used by the sections query). */
  id: string;
  title: string;
  /** Initially expanded; defaults to true. */
  defaultExpanded?: boolean;
  /** Controlled mode. */
  expanded?: boolean;
  onToggle?: (expanded: boolean) => void;
  /** Right-aligned note in the header, e.g. 'Prices do not include VAT'. */
  note?: ReactNode;
  /**
   * A one-line summary of the choice, shown in the header while the section is collapsed
   * (a compact configurator still says what was chosen).
   */
  summary?: ReactNode;
  children: ReactNode;
}

/** A titled section that collapses and expands. */
export function SectionBlock({ id, title, defaultExpanded = true, expanded, onToggle, note, summary, children }: SectionBlockProps) {
  const [own, setOwn] = useState(defaultExpanded);
  const isOpen = expanded ?? own;
  // A section's body is rendered the first time it opens and kept after (its fields keep
  // what the buyer typed when it closes again): the collapsed sections of /buy are half the
  // page's elements, and rendering them hidden made its first render a long task.
  const opened = useRef(isOpen);
  opened.current ||= isOpen;
  const bodyId = useId();
  const toggle = () => {
    const next = !isOpen;
    if (expanded === undefined) setOwn(next);
    onToggle?.(next);
  };
  return (
    <section className={ui.hSection} id={`section-${id}`} data-section={id} aria-labelledby={`${bodyId}-title`}>
      <div className={ui.hSectionHeader}>
        <h2 className={ui.hSectionTitle} id={`${bodyId}-title`}>
          <button type="button" className={ui.hSectionToggle} aria-expanded={isOpen} aria-controls={bodyId} onClick={toggle}>
            <span aria-hidden="true">{isOpen ? '▾' : '▸'}</span>
            <span className={ui.hSectionName}>{title}</span>
            {!isOpen && summary ? (
              <span className={ui.hSectionSummary} data-testid={`summary-${id}`}>
                {summary}
              </span>
            ) : null}
          </button>
        </h2>
        {note ? <p className={ui.hSectionNote}>{note}</p> : null}
      </div>
      <div className={ui.hSectionBody} id={bodyId} hidden={!isOpen}>
        {opened.current ? children : null}
      </div>
    </section>
  );
}
