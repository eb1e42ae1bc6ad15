import ui from './ui.module.css';

export interface PayTermsLinks {
  terms: string;
  privacy: string;
  refunds: string;
}

export interface PayTermsProps {
  links: PayTermsLinks;
  /** An auto-renewing purchase: the amount, how often and from when it is charged again. */
  renewal?: { amount: string; period: string; date: string };
  /** The words on the pay button the sentences refer to. */
  action?: string;
}

/** The legal pages open in a new tab: following one must not lose the form. */
function Legal({ href, children }: { href: string; children: string }) {
  return (
    <a href={href} target="_blank" rel="noreferrer">
      {children}
    </a>
  );
}

/**
 * What the buyer authorises, said next to the pay button (issue 45; the card networks' and
 * consumer law's auto-renewal disclosure: the amount, the period, the date, how to cancel,
 * before payment), and the terms, privacy and refund policies (tools/site-links.mjs).
 */
export function PayTerms({ links, renewal, action = 'Pay' }: PayTermsProps) {
  return (
    <div className={ui.hPayTerms} data-testid="pay-terms">
      {renewal ? (
        <p data-testid="renewal-authorisation">
          Your subscription renews automatically. By pressing {action} you authorise us to charge {renewal.amount} to this payment method
          every {renewal.period}, from {renewal.date}, until you cancel. You can cancel at any time before a renewal date by turning off
          automatic renewal on your <a href="/account">account page</a>.
        </p>
      ) : null}
      <p>
        By pressing {action} you agree to our <Legal href={links.terms}>terms of sale</Legal>. See our{' '}
        <Legal href={links.privacy}>privacy policy</Legal> and <Legal href={links.refunds}>refund policy</Legal>.
      </p>
    </div>
  );
}
