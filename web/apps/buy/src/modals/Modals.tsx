import { useState } from 'react';
import { Button, Dialog, LoginForm, TextField } from '@hangar/ui';
import type { WireAllocation, WirePlanChange, WirePromoInfoRequirement } from '@hangar/api-client';
import s from '../buy.module.css';

/** What the CREATE NEW ACCOUNT panel of the login modal needs (spec 001 §2). */
export interface CreateAccountOffer {
  /** The cart buys for an organization: its name is asked for too. */
  business: boolean;
  organizationName: string;
  onOrganization: (v: string) => void;
  /** Creates the account and logs it in; answers the messages of a refusal. */
  onCreate: (email: string, password: string) => Promise<string[] | undefined>;
}

/**
 * The login modal. With `create` (a purchase of several licences by a buyer without an
 * account) it also offers CREATE NEW ACCOUNT beside LOGIN TO EXISTING ACCOUNT, so a new
 * organization signs up and goes on to payment without leaving the page or the cart.
 */
export function LoginModal({ open, heading, onClose, onLogin, initialEmail, create }: {
  open: boolean;
  heading: string;
  onClose: () => void;
  onLogin: (u: string, p: string, recaptchaValue: string) => Promise<string | undefined>;
  initialEmail: string;
  create?: CreateAccountOffer;
}) {
  const login = <LoginForm className={create ? s.buyAccountPanel : undefined} title={create ? 'LOGIN TO EXISTING ACCOUNT' : undefined} initialUsername={initialEmail} onLogin={onLogin} />;
  return (
    <Dialog open={open} title={heading} onClose={onClose} testId="login-modal">
      {create ? (
        <div className={s.buyAccountPanels}>
          <CreateAccountPanel offer={create} initialEmail={initialEmail} />
          {login}
        </div>
      ) : (
        login
      )}
    </Dialog>
  );
}

function CreateAccountPanel({ offer, initialEmail }: { offer: CreateAccountOffer; initialEmail: string }) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<{ email?: string[]; password?: string[]; confirm?: string[]; organization?: string[]; other?: string[] }>({});
  return (
    <form
      aria-labelledby="modal-create-title"
      className={s.buyAccountPanel}
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        const found: typeof errors = {};
        if (!email.trim()) found.email = ['Please enter your email address.'];
        if (!password) found.password = ['Please enter a password.'];
        else if (confirm !== password) found.confirm = ['Passwords do not match'];
        if (offer.business && !offer.organizationName.trim()) found.organization = ['Please enter your organization name.'];
        setErrors(found);
        if (Object.keys(found).length > 0) return;
        setBusy(true);
        const refused = await offer.onCreate(email.trim(), password);
        if (refused) {
          setErrors({ other: refused });
          setBusy(false);
        }
      }}
    >
      <h3 id="modal-create-title">CREATE NEW ACCOUNT</h3>
      <TextField label="Email Address" id="modal-create-email" name="email" type="email" autoComplete="email" value={email} errors={errors.email} onChange={(e) => setEmail(e.target.value)} />
      {offer.business ? (
        <TextField
          label="Organization Name"
          id="modal-create-organization"
          name="organizationName"
          autoComplete="organization"
          value={offer.organizationName}
          errors={errors.organization}
          onChange={(e) => offer.onOrganization(e.target.value)}
        />
      ) : null}
      <TextField label="Password" id="modal-create-password" name="new-password" type="password" autoComplete="new-password" value={password} errors={errors.password} onChange={(e) => setPassword(e.target.value)} />
      <TextField
        label="Confirm Password"
        id="modal-create-confirm"
        name="confirm-password"
        type="password"
        autoComplete="new-password"
        value={confirm}
        errors={[...(errors.confirm ?? []), ...(errors.other ?? [])]}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <Button type="submit" disabled={busy}>
        CREATE ACCOUNT AND CONTINUE
      </Button>
    </form>
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
export function PlanChangeModal({ change, warning, open, onProceed, onKeepEditing, errors }: {
  change: WirePlanChange | undefined;
  /** What the change does besides the plan (an owner's users losing their allocations). */
  warning?: string;
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
      {warning ? <p data-testid="plan-change-warning">{warning}</p> : null}
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

/** What the buyer's answer to the expired-allocations modal changes in the configuration. */
export interface AllocationsChoice {
  keepExpiredAllocations: boolean;
  expiredAllocations: WireAllocation[] | undefined;
  /** Set when users would lose licences and the buyer keeps them: the count that keeps them all. */
  quantity?: string;
}

/**
 * The configuration after the buyer answers the modal. Aircraft (TAIL) allocations are kept
 * by keeping their add-ons (keepExpiredAllocations); a users' pool (USER) is kept by buying
 * at least as many licences as users hold it (assigned), since checkout lists it only
 * while the quantity is below that. Letting them end echoes every entry back.
 */
export function allocationsChoice(allocations: readonly WireAllocation[], keep: boolean, quantity: string): AllocationsChoice {
  if (!keep) return { keepExpiredAllocations: false, expiredAllocations: [...allocations] };
  const held = Math.max(0, ...allocations.filter((a) => a.targetType === 'USER').map((a) => a.assigned ?? 0));
  const current = Number(quantity.trim());
  const out: AllocationsChoice = { keepExpiredAllocations: true, expiredAllocations: undefined };
  if (held > 0 && !(current >= held)) out.quantity = String(held);
  return out;
}

export function ExpiredAllocationsModal({ allocations, onChoose }: { allocations: WireAllocation[] | undefined; onChoose: (keep: boolean) => void }) {
  const list = allocations ?? [];
  const users = list.filter((a) => a.targetType === 'USER');
  const tails = list.filter((a) => a.targetType !== 'USER');
  const title = tails.length === 0 ? 'Users lose their licences' : users.length === 0 ? 'Expired aircraft allocations' : 'Allocations end with this change';
  return (
    <Dialog
      open={list.length > 0}
      title={title}
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
      {tails.length > 0 ? (
        <>
          <p>Some of your aircraft allocations end with this change:</p>
          <ul>
            {tails.map((a) => (
              <li key={`${a.targetId}-${(a.addOnCodes ?? []).join(',')}`}>
                {a.targetId}: {(a.addOnCodes ?? []).join(', ')}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {users.length > 0 ? (
        <>
          <p>Some of your users lose their licences with this change:</p>
          <ul>
            {users.map((a) => (
              <li key={`${a.targetId}-${(a.addOnCodes ?? []).join(',')}`}>
                {(a.addOnCodes ?? []).join(', ')}: {a.assigned ? `${a.assigned} users hold a licence` : 'held by more users than this order keeps'}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p>
        {users.length === 0
          ? 'Keep them (their add-ons stay in your order) or let them end?'
          : tails.length === 0
            ? 'Keep them (your order keeps a licence for each of these users) or let the newest assignments end?'
            : 'Keep them (their add-ons stay in your order, with a licence for each user) or let them end?'}
      </p>
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
