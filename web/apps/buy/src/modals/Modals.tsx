import { useState } from 'react';
import { Button, Dialog, TextField } from '@hangar/ui';
import type { WireAllocation, WirePlanChange, WirePromoInfoRequirement } from '@hangar/api-client';
import s from '../buy.module.css';

export function LoginModal({ open, heading, onClose, onLogin, initialEmail }: {
  open: boolean;
  heading: string;
  onClose: () => void;
  onLogin: (u: string, p: string) => Promise<string | undefined>;
  initialEmail: string;
}) {
  const [user, setUser] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  return (
    <Dialog open={open} title={heading} onClose={onClose} testId="login-modal">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          const msg = await onLogin(user, password);
          if (msg) {
            setError(msg);
            setBusy(false);
          }
        }}
      >
        <TextField label="Email Address" id="modal-login-email" name="username" type="email" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} />
        <TextField
          label="Password"
          id="modal-login-password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          errors={error ? [error] : []}
          onChange={(e) => setPassword(e.target.value)}
        />
        <Button type="submit" disabled={busy}>
          LOGIN
        </Button>
        <p>
          <a href="/account/forgot-password">Forgot password?</a>
        </p>
      </form>
    </Dialog>
  );
}

export function CurrencyNotAllowedModal({ message, onClose }: { message: string | undefined; onClose: () => void }) {
  return (
    <Dialog open={Boolean(message)} title="Currency Not Allowed" onClose={onClose} testId="currency-modal" footer={<Button onClick={onClose}>OK</Button>}>
      <p>{message}</p>
    </Dialog>
  );
}

/** Spec 000 §4: the subscription restarts today and the remaining time is credited. */
export function PlanChangeModal({ change, open, onProceed, onKeepEditing, errors }: {
  change: WirePlanChange | undefined;
  open: boolean;
  onProceed: () => void;
  onKeepEditing: () => void;
  errors: string[];
}) {
  const what = [
    change?.isDowngraded ? 'a downgrade of your plan' : undefined,
    change?.isRegionChange ? 'a change of regions' : undefined,
    change?.isJeppChange ? 'a change of chart coverage' : undefined,
    change?.isFeatureChange ? 'a change of features' : undefined,
    change?.hasRunwayAnalysisFeatureChange ? 'a change of runway-analysis aircraft' : undefined,
  ].filter(Boolean);
  return (
    <Dialog
      open={open}
      title="Confirm your subscription change"
      onClose={onKeepEditing}
      testId="plan-change-modal"
      footer={
        <>
          <Button variant="secondary" onClick={onKeepEditing}>
            Keep editing
          </Button>
          <Button onClick={onProceed} disabled={errors.length > 0}>
            Proceed to checkout
          </Button>
        </>
      }
    >
      {change?.message ? <p>{change.message}</p> : null}
      {what.length > 0 ? <p>This order is {what.join(', ')}.</p> : null}
      <p>Your subscription restarts today and the remaining time of your current subscription is credited to this order.</p>
      {change?.sunsetMessage ? <p>{change.sunsetMessage}</p> : null}
      {errors.length > 0 ? (
        <ul className={s.buyErrorsList} role="alert">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </Dialog>
  );
}

export function ExpiredAllocationsModal({ allocations, onChoose }: { allocations: WireAllocation[] | undefined; onChoose: (keep: boolean) => void }) {
  return (
    <Dialog
      open={Boolean(allocations && allocations.length > 0)}
      title="Expired aircraft allocations"
      onClose={() => onChoose(true)}
      testId="allocations-modal"
      footer={
        <>
          <Button variant="secondary" onClick={() => onChoose(false)}>
            Let them end
          </Button>
          <Button onClick={() => onChoose(true)}>Keep them</Button>
        </>
      }
    >
      <p>Some of your aircraft allocations end with this change:</p>
      <ul>
        {(allocations ?? []).map((a) => (
          <li key={`${a.targetId}-${(a.addOnCodes ?? []).join(',')}`}>
            {a.targetId}: {(a.addOnCodes ?? []).join(', ')}
          </li>
        ))}
      </ul>
      <p>Keep them (their add-ons stay in your order) or let them end?</p>
    </Dialog>
  );
}

export function PromoNoticeModal({ requirement, onClose }: { requirement: WirePromoInfoRequirement | undefined; onClose: () => void }) {
  return (
    <Dialog open={Boolean(requirement)} title={`Promotion ${requirement?.code ?? ''}`} onClose={onClose} testId="promo-modal" footer={<Button onClick={onClose}>OK</Button>}>
      <p data-testid="promo-notice">{requirement?.message}</p>
      {requirement?.removeCode ? <p>The code has been removed from your order.</p> : null}
    </Dialog>
  );
}

export function CreditCardModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title="Credit card" onClose={onClose} testId="card-modal" footer={<Button onClick={onClose}>OK</Button>}>
      <p>We accept Visa, MasterCard, American Express and Discover. The security code (CVV) is the 3 digits on the back of your card, or 4 on the front of an American Express card.</p>
      <p>Your card details go straight to our payment processor; they never touch this page.</p>
    </Dialog>
  );
}
