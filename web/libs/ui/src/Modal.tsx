import ui from './ui.module.css';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Button } from './Button';

export interface ModalProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  /** Extra key handling (e.g. arrow keys to step through pages). */
  onKeyDown?: (e: KeyboardEvent) => void;
}

/** A dialog: focus moves in on open and back on close; Escape and the backdrop close it. */
export function Modal({ open, title, onClose, children, footer, onKeyDown }: ModalProps) {
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return undefined;
    const previous = document.activeElement as HTMLElement | null;
    dialogRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
      else onKeyDown?.(e);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [open, onClose, onKeyDown]);

  if (!open) return null;
  return createPortal(
    <div className={ui.hModalBackdrop} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={ui.hModal} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} ref={dialogRef}>
        <div className={ui.hModalHeader}>
          <h2 className={ui.hModalTitle} id={titleId}>{title}</h2>
          <Button variant="link" size="small" onClick={onClose} aria-label="Close">×</Button>
        </div>
        <div>{children}</div>
        {footer ? <div>{footer}</div> : null}
      </div>
    </div>,
    document.body,
  );
}
