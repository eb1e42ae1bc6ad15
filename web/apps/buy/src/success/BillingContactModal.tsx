import { useEffect, useState } from 'react';
import { Button, Dialog, SelectField, TextField } from '@hangar/ui';
import { ApiError, unwrap } from '@hangar/api-client';
import { apiClient } from '../api';
import { countries } from '../payment/countries';
import s from '../buy.module.css';

export interface BillingContact {
  name: string;
  physicalAddress: string;
  physicalAddress2: string;
  city: string;
  stateProvince: string;
  postalCode: string;
  country: string;
}

const EMPTY_CONTACT: BillingContact = { name: '', physicalAddress: '', physicalAddress2: '', city: '', stateProvince: '', postalCode: '', country: '' };

export function BillingContactModal({ open, invoiceId, accountId, initial, onClose, onSaved }: { open: boolean; invoiceId: string; accountId: string; initial?: Partial<BillingContact>; onClose: () => void; onSaved: (contact: BillingContact) => void }) {
  const [contact, setContact] = useState<BillingContact>({ ...EMPTY_CONTACT, ...(initial ?? {}) });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!open || !accountId || initial?.name) return;
    unwrap(apiClient().checkout.GET('/buy/api/account/{accountUuid}/subscription', { params: { path: { accountUuid: accountId }, query: { subscriptionOnly: 'true' } } }))
      .then((r) => setContact({ ...EMPTY_CONTACT, ...((r.subscription?.billingContact ?? {}) as Partial<BillingContact>) }))
      .catch(() => setError('Latest contact info failed to load.'));
  }, [open, accountId, initial?.name]);
  const set = (k: keyof BillingContact) => (e: { target: { value: string } }) => setContact((c) => ({ ...c, [k]: e.target.value }));
  return (
    <Dialog open={open} title="Billing contact" onClose={onClose} testId="billing-contact-modal">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            // The invoice's own contact route: the receipt's token (cookie of the browser that
            // paid or opened the e-mailed link) is enough, so a guest needs no log-in (issue 31).
            await unwrap(apiClient().checkout.POST('/buy/api/receipt/{invoice_id}/contact', { params: { path: { invoice_id: invoiceId } }, body: contact }));
            onSaved(contact);
          } catch (err) {
            const status = err instanceof ApiError ? err.status : 0;
            if (status === 403) {
              const url = new URL(window.location.href);
              url.searchParams.set('prompt', 'login');
              window.location.assign(url.pathname + url.search);
              return;
            }
            if (status === 404) {
              // No contact store answers on this deployment: the invoice still prints with
              // the contact as entered.
              onSaved(contact);
              return;
            }
            setError(status === 401 ? 'You are not authorized.' : 'Your Billing Contact Information failed to upload.');
          } finally {
            setBusy(false);
          }
        }}
      >
        <TextField label="Name" name="name" value={contact.name} onChange={set('name')} />
        <TextField label="Address" name="physicalAddress" value={contact.physicalAddress} onChange={set('physicalAddress')} />
        <TextField label="Address line 2" name="physicalAddress2" value={contact.physicalAddress2} onChange={set('physicalAddress2')} />
        <TextField label="City" name="city" value={contact.city} onChange={set('city')} />
        <TextField label="State / Province" name="stateProvince" value={contact.stateProvince} onChange={set('stateProvince')} />
        <TextField label="Postal code" name="postalCode" value={contact.postalCode} onChange={set('postalCode')} />
        <SelectField label="Country" name="country" value={contact.country} onChange={set('country')} options={[{ value: '', label: 'Select a country' }, ...countries().map((c) => ({ value: c.code, label: c.name }))]} />
        {error ? (
          <p className={s.buyErrorInline} role="alert">
            {error}
          </p>
        ) : null}
        <Button type="submit" disabled={busy}>
          Save and print invoice
        </Button>
      </form>
    </Dialog>
  );
}
