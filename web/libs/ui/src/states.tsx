import ui from './ui.module.css';
import type { ReactNode } from 'react';
import { Button } from './Button';

export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className={ui.hState} role="status" aria-live="polite">
      <span className={ui.hSpinner} aria-hidden="true" />
      {label}
    </div>
  );
}

export interface ErrorStateProps {
  message: ReactNode;
  detail?: ReactNode;
  onRetry?: () => void;
  retryLabel?: string;
}

/** An error with an optional Retry button; never a blank screen. */
export function ErrorState({ message, detail, onRetry, retryLabel = 'Retry' }: ErrorStateProps) {
  return (
    <div className={`${ui.hState} ${ui.hStateError}`} role="alert">
      <p className={ui.hStateMessage}>{message}</p>
      {detail ? <p>{detail}</p> : null}
      {onRetry ? (
        <Button size="large" onClick={onRetry}>
          {retryLabel}
        </Button>
      ) : null}
    </div>
  );
}
