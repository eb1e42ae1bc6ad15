import { useEffect, useState, type Dispatch } from 'react';
import type { WireMe } from '@hangar/api-client';
import { onSalesModeChange, readSalesMode, type SalesModeSetting } from '@hangar/storefront';
import type { Action, Configuration } from './configuration';
import { useCardReaders, useMarketingConsent, usePaymentMethod } from './hooks';
import type { PayWith } from './payment/PaymentSection';

/**
 * How the buyer pays: the card, the stored method, a wallet, or (staff in sales mode) a
 * card reader; and whether the optional marketing question is asked.
 */
export function usePayment(me: WireMe, meReady: boolean, config: Configuration, dispatch: Dispatch<Action>) {
  const loggedIn = me.loggedIn === true;
  const storedMethod = usePaymentMethod(loggedIn ? me.accountUuid : undefined);
  const readers = useCardReaders(loggedIn && me.isCreditCardAdmin === true);
  const [payWith, setPayWith] = useState<PayWith>('card');
  useEffect(() => {
    if (storedMethod.data?.paymentMethod?.token) setPayWith((w) => (w === 'card' ? 'stored' : w));
  }, [storedMethod.data]);
  const [reader, setReader] = useState('');
  // Sales mode (this device's setting, spec 001 §4) with a credit-card admin signed in: the
  // order is the customer's at the counter, not the staff member's (issue 31: the e-mail was
  // locked to the staff account). The configuration carries the reader, so checkout prices and
  // orders for the e-mail typed here, and the card is the reader's.
  const [salesMode, setSalesMode] = useState<SalesModeSetting | null>(() => readSalesMode());
  useEffect(() => onSalesModeChange(() => setSalesMode(readSalesMode())), []);
  const selling = Boolean(salesMode && loggedIn && me.isCreditCardAdmin);
  const sellingReader = selling ? salesMode!.readerSerialNumber : '';
  useEffect(() => {
    if (config.readerSerialNumber === sellingReader) return;
    // The staff member's own identity, adopted from a preview before sales mode applied, goes.
    const own = (v: string) => (v && me.accountUuid && v.toLowerCase() === me.accountUuid.toLowerCase() ? '' : v);
    // Only an e-mail this render saw is cleared: a patch with email '' would also wipe an
    // e-mail typed since (the patch applies after it).
    dispatch({ type: 'set', patch: sellingReader ? { readerSerialNumber: sellingReader, ...(config.email ? { email: '' } : {}), accountId: own(config.accountId), subscriptionId: own(config.accountId) ? config.subscriptionId : '' } : { readerSerialNumber: '' } });
    if (sellingReader) {
      setPayWith('reader');
      setReader(sellingReader);
    }
  }, [sellingReader]);
  // The optional marketing checkbox (spec 001 §5): for a signed-in buyer whom identity
  // answers without marketing consent, and for a visitor (a new customer has none yet; an
  // existing account must log in to buy anyway). Not while the answer is unknown, and not
  // when staff take the card on a reader: they cannot consent for the customer.
  const marketingPref = useMarketingConsent(loggedIn ? me.accountUuid : undefined);
  const [marketing, setMarketing] = useState(false);
  const askMarketing = meReady && payWith !== 'reader' && (loggedIn ? marketingPref.data === false : true);
  return { storedMethod, readers, payWith, setPayWith, reader, setReader, selling, askMarketing, marketing, setMarketing };
}

export type Payment = ReturnType<typeof usePayment>;
