import { cx } from './cx';
import ui from './ui.module.css';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button } from './Button';

/** The banner slides closed in 300 ms (spec 000 §9). */
export const BANNER_SLIDE_MS = 300;

export interface NotificationBannerProps {
  children: ReactNode;
  kind?: 'info' | 'error';
  /** Closable when given; called after the slide finishes. */
  onClose?: () => void;
}

export function NotificationBanner({ children, kind = 'info', onClose }: NotificationBannerProps) {
  const [closing, setClosing] = useState(false);
  const [gone, setGone] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  if (gone) return null;
  const close = () => {
    setClosing(true);
    timer.current = setTimeout(() => {
      setGone(true);
      onClose?.();
    }, BANNER_SLIDE_MS);
  };
  return (
    <div
      className={cx(ui.hBanner, kind === 'error' && ui.hBannerError, closing && ui.hBannerClosing)}
      role={kind === 'error' ? 'alert' : 'status'}
      data-closing={closing || undefined}
    >
      <div className={ui.hBannerInner}>
        <div>{children}</div>
        {onClose ? (
          <Button variant="link" size="small" onClick={close} aria-label="Close notification">×</Button>
        ) : null}
      </div>
    </div>
  );
}
