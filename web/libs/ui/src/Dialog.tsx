import { cx } from './cx';
import ui from './ui.module.css';
import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Button } from './Button';

export interface DialogProps {
  open: boolean;
  title: string;
  /** Escape, the close button, or the caller's own buttons. */
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  /** Some dialogs cannot be dismissed (a required notice on a cart route). */
  dismissable?: boolean;
  className?: string;
  testId?: string;
  /** Keys other than Escape (e.g. arrow keys to step through pages). */
  onKeyDown?: (e: KeyboardEvent<HTMLDialogElement>) => void;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Tab from the dialog's last control goes to its first, Shift+Tab from the first to the last.
 * showModal() makes the page inert, but the browser still lets Tab leave the document (to
 * its own toolbar, or to nothing in a headless one): the focus stays in the dialog (issue 45).
 */
function trapTab(e: KeyboardEvent<HTMLDialogElement>) {
  if (e.key !== 'Tab') return;
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest('[inert]'));
  if (items.length === 0) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === e.currentTarget)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && at === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * A modal dialog on the native <dialog> element: showModal() makes the rest of the
 * page inert (focus stays inside), Escape closes it, focus returns to where it was.
 */
export function Dialog({ open, title, onClose, children, footer, dismissable = true, className, testId, onKeyDown }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const d = ref.current;
    if (!d) return undefined;
    if (open && !d.open) {
      const previous = document.activeElement as HTMLElement | null;
      if (typeof d.showModal === 'function') d.showModal();
      else d.setAttribute('open', '');
      return () => {
        if (d.open) d.close?.();
        previous?.focus?.();
      };
    }
    return undefined;
  }, [open]);

  if (!open) return null;
  return (
    <dialog
      ref={ref}
      className={cx(ui.hDialog, className)}
      aria-labelledby={titleId}
      data-testid={testId}
      onKeyDown={(e) => {
        trapTab(e);
        onKeyDown?.(e);
      }}
      onCancel={(e) => {
        // Escape: we close through state so React stays the source of truth.
        e.preventDefault();
        if (dismissable) onCloseRef.current();
      }}
    >
      <div className={ui.hModalHeader}>
        <h2 className={ui.hModalTitle} id={titleId}>
          {title}
        </h2>
        {dismissable ? (
          <Button variant="link" size="small" onClick={() => onCloseRef.current()} aria-label="Close dialog">
            ×
          </Button>
        ) : null}
      </div>
      <div>{children}</div>
      {footer ? <div className={ui.hDialogFooter}>{footer}</div> : null}
    </dialog>
  );
}
