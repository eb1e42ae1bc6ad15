import { memo, useCallback, useMemo, useReducer, useRef, useState } from 'react';
import { Button, cx, ErrorSummary, HumanVerification, NotificationBanner, PayTerms, type HostedCardFieldsHandle, type HumanVerificationHandle } from '@hangar/ui';
import { VAT_NOTE, formatMoney, showsVatNote, type CurrencyCode } from '@hangar/money';
import { DEFAULT_LINKS, STILL_PROCESSING, num, type Catalog, type WireMe } from '@hangar/api-client';
import { syncKiosk, withKiosk } from '@hangar/storefront';
import type { BuyQuery } from './query';
import { initialConfiguration, needsAdopt, reduce, type Action } from './configuration';
import { useLinks, useNotice, usePreview, type Preview } from './hooks';
import { InvoicePanel, renewalDateText } from './InvoicePanel';
import { AccountBlock as AccountBlockView } from './sections/Account';
import { CurrencySelector as CurrencySelectorView } from './sections/CurrencySelector';
import { PLAN_GROUPS, PlansSection } from './sections/Plans';
import { RegionsSection } from './sections/Regions';
import { AddOnsSection, OptionalSections } from './sections/AddOns';
import { QuantitySection } from './sections/Quantity';
import { Agreements } from './sections/Agreements';
import { DowngradeWarning, LegacyNotice, RenewalBox } from './sections/Renewal';
import { PromoBox } from './sections/PromoBox';
import { PayBar } from './sections/PayBar';
import { planGroupOf } from './sections/options';
import { allocationsChoice, CreditCardModal, CurrencyNotAllowedModal, ExpiredAllocationsModal, LoginModal, PlanChangeModal, PromoNoticeModal } from './modals/Modals';
import { PaymentSection as PaymentSectionView, type PaymentSectionProps } from './payment/PaymentSection';
import { normalizeCountry } from './payment/countries';
import { LOGIN_REQUIRED } from './account';
import { useSignupAtCheckout } from './signup';
import { useEvent, useStable } from './render';
import { CONNECT_ERROR, DOWNGRADE_ALLOCATIONS } from './messages';
import { useAddToCart } from './buyAnalytics';
import { useBuyErrors } from './errors';
import { useAccount } from './useAccount';
import { useCurrencyChoice } from './useCurrencyChoice';
import { useModals } from './useModals';
import { usePayment } from './usePayment';
import { usePurchase } from './usePurchase';
import { useSections } from './useSections';
import { usePaymentPlacement } from './usePaymentPlacement';
import { useCodeEntry } from './useCodeEntry';
import { useDowngradeWarning, useQuantityConfirm } from './useCartGuards';
import s from './buy.module.css';

// A query answer renders the configurator again; these sections render again only when what
// they show changed (their props are kept stable: render.ts).
const AccountBlock = memo(AccountBlockView);
const CurrencySelector = memo(CurrencySelectorView);
const PaymentSection = memo(PaymentSectionView);
const NONE: never[] = [];

export interface ConfiguratorProps {
  catalog: Catalog;
  me: WireMe;
  meReady: boolean;
  query: BuyQuery;
  navigate: (url: string) => void;
  reload: () => void;
}

/** The /buy page once the catalogue is in: it composes the sections, each reading its own data. */
export function Configurator({ catalog, me, meReady, query, navigate, reload }: ConfiguratorProps) {
  const [config, dispatch] = useReducer(reduce, query, initialConfiguration);
  const adopt = useCallback((p: Preview) => dispatch({ type: 'adopt', preview: p }), []);
  const { preview: p, pending: previewPending, query: previewQuery } = usePreview(config, adopt, needsAdopt);
  const currency = config.currency;
  const loggedIn = me.loggedIn === true;
  // Kiosk mode is the storefront's, shared with the shell (one session-storage flag).
  const kiosk = useMemo(() => syncKiosk(query.kiosk ? '?kiosk=true' : ''), [query.kiosk]);
  const href = (h: string) => (kiosk ? withKiosk(h) : h);
  const { shell, onExpanded } = useSections(query, showsVatNote(currency) ? VAT_NOTE : undefined, Boolean(p));

  const { paymentPlace, paymentShown, onJumpToPayment } = usePaymentPlacement();

  const isBusiness = p?.isBusiness === true;
  const isMilitary = p?.isMilitary ?? config.military;
  const notice = useNotice('buy').data;
  const links = useLinks().data ?? DEFAULT_LINKS;
  const quantity = num(p?.quantity, 1);

  const quantityCheck = useQuantityConfirm(p?.isRenewal === true, isBusiness || isMilitary, quantity);
  const quantityUnconfirmed = quantityCheck.unconfirmed;

  const modals = useModals(query, p, previewQuery.error);
  const downgrade = useDowngradeWarning(isBusiness, config.businessDowngrade);
  const downgradeWarning = downgrade.warning;
  useAddToCart(p, me.accountUuid);

  const payment = usePayment(me, meReady, config, dispatch);
  const hosted = useRef<HostedCardFieldsHandle>(null);
  const human = useRef<HumanVerificationHandle>(null);
  const buy = usePurchase({
    preview: p, previewPending, refetchPreview: () => void previewQuery.refetch(), config, currency, me, payment, hosted, human,
    deeplinkOnSuccess: query.deeplinkOnSuccess ?? undefined, kiosk, modals, navigate,
  });
  const { onLogin, onLogout } = useAccount(me, query, reload, buy.setSubmitErrors);
  const onCurrency = useCurrencyChoice({ query, config, dispatch, loggedIn, military: isMilitary, serverCurrency: p?.invoice?.currency, onRefused: modals.setCurrencyMessage });

  // ---- the cart
  const planCodes = useMemo(() => PLAN_GROUPS.flatMap((g) => catalog.groups[g]?.entries.map((e) => e.addOnCode) ?? []), [catalog]);
  const addOns = useStable(config.addOns.length > 0 ? config.addOns : (p?.addOns ?? NONE));
  const plan = addOns.find((c) => planCodes.includes(c));
  const locked = useStable(p?.lockedAddOns ?? NONE);
  const regionMode = p?.regionMode ?? 'checkbox';
  const cart = { catalog, currency, addOns, locked };

  // A choice the buyer made (not the address's or the server's): until one, a selection
  // the cart still lacks (the bundle's HondaJet model) is not yet an error to show.
  const [chosen, setChosen] = useState(false);
  const choose = useEvent((a: Action) => {
    setChosen(true);
    dispatch(a);
  });
  const toggle = useEvent((code: string) => choose({ type: 'toggle', code }));
  const onPlan = useEvent((code: string) => choose({ type: 'selectPlan', plan: code, planCodes }));
  const errors = useBuyErrors(p, { chosen, attempted: buy.attempted, submitErrors: buy.submitErrors, cardErrors: buy.cardErrors });

  // A new organization buying several licences signs up in the login modal and goes on.
  const signup = useSignupAtCheckout({
    loggedIn,
    previewLoggedIn: p?.loggedIn === true,
    // Settled includes typed text not yet priced (the debounce): purchase() refuses to pay a
    // total the screen has not caught up with, and the sign-up goes on only once.
    previewSettled: Boolean(p) && !previewQuery.isFetching && !previewPending,
    submitting: buy.submitting,
    errors: buy.submitErrors,
    business: isBusiness,
    organizationName: config.organizationName,
    isEu: p?.euConsentRequired === true,
    onOrganization: (v) => dispatch({ type: 'set', patch: { organizationName: v } }),
    onSignedUp: (email) => {
      dispatch({ type: 'set', patch: { email } });
      buy.setSubmitErrors([]);
      modals.setLogin(undefined);
    },
    goOn: () => void buy.purchase(),
  });

  // Licence agreement: business or military with more than one licence; EULA for business.
  const needsLicense = (isBusiness || isMilitary) && quantity > 1;
  const licenseMissing = needsLicense && !config.isLicenseAgreementChecked;
  // A failed re-pricing shows its reason in place of the total: the last good total is
  // no longer the price of what is on screen, so it is neither shown nor payable.
  const repriceError = previewQuery.isError && !previewQuery.isFetching ? previewQuery.error.message || CONNECT_ERROR : undefined;
  const payable = Boolean(p?.invoice) && !repriceError;
  const total = payable ? formatMoney(num(p!.invoice!.totalInCents), (p!.invoice!.currency as CurrencyCode) ?? currency) : undefined;
  const durationMonths = planGroupOf(catalog, plan).find((e) => e.addOnCode === plan)?.durationMonths;

  // The sections' callbacks, the same functions for the page's life (memoized sections).
  const onEmail = useEvent((v: string) => dispatch({ type: 'set', patch: config.accountId && (!loggedIn || payment.selling) ? { email: v, accountId: '', subscriptionId: '' } : { email: v } }));
  const onOrganization = useEvent((v: string) => dispatch({ type: 'set', patch: { organizationName: v } }));
  const onAccountNumber = useEvent((v: string) => dispatch({ type: 'set', patch: { jeppCustomerNo: v } }));
  const collapsePlans = useEvent(() => onExpanded('plans')(false));
  const codes = useStable([...config.discountPromoCode, ...config.giftCertificateCode]);
  const onAddCode = useCodeEntry(config, codes, dispatch, modals.setPromo);
  const onRemoveCode = useEvent((code: string) => dispatch({ type: 'removeCode', code }));
  const onPaymentChange = useEvent((patch: Parameters<PaymentSectionProps['onChange']>[0]) =>
    dispatch({ type: 'set', patch: { ...patch, ...(patch.country !== undefined ? { country: normalizeCountry(patch.country) } : {}) } }),
  );
  const onCardHelp = useCallback(() => modals.setCardHelp(true), []);
  // Enter in the card frame pays too: not past an unconfirmed licence count (the Pay button
  // waits for it as well); the buyer is taken to the question instead.
  const onPay = useEvent(() => {
    if (!quantityUnconfirmed) return void buy.purchase();
    document.querySelector<HTMLInputElement>('input[name="quantityConfirmed"]')?.focus();
  });
  const family = query.hjopaBundle ? 'Business Plans' : isMilitary ? 'Military Plans' : isBusiness ? 'Business Plans' : 'Individual Plans';
  const bundleName = query.hjopaBundle ? (catalog.groups.BUNDLE?.entries[0]?.title ?? 'HondaJet Bundle') : undefined;

  return (
    <div className={cx(s.buy, s.buyWithPaybar)} data-remote="buy" data-kiosk={kiosk || undefined}>
      <nav className={s.buyCrumbs} aria-label="Breadcrumbs">
        <ol>
          <li>
            <a href={href('/pricing')}>{family}</a>
          </li>
          <li aria-current="page">{bundleName ?? 'Your Plan'}</li>
        </ol>
      </nav>
      <div className={s.buyLayout}>
        <div className={s.buyMain}>
          {/* 1. notification banner */}
          {notice ? <NotificationBanner onClose={() => undefined}>{notice}</NotificationBanner> : null}
          <div className={s.buyHead}>
            <h1>{query.military ? 'Military Plans' : 'Your Plan'}</h1>
          </div>
          {/* 2. e-mail and organization */}
          {meReady ? (
            <AccountBlock
              loggedIn={loggedIn && !payment.selling}
              seller={payment.selling ? (me.username ?? me.email ?? '') : undefined}
              username={me.username ?? me.email ?? ''}
              email={loggedIn && !payment.selling ? (p?.email ?? me.email ?? '') : config.email}
              organizationName={config.organizationName}
              business={isBusiness}
              emailLocked={p?.emailLocked === true}
              emailErrors={errors.of('email')}
              orgErrors={errors.of('organizationName')}
              onEmail={onEmail}
              onOrganization={onOrganization}
              onLogin={onLogin}
              onLogout={onLogout}
              childMessage={errors.childMessage}
            />
          ) : (
            // Until the session answers, a visitor's block keeps its place (most buyers of this
            // page are visitors): arriving after the plans it pushed them 380 px down a phone
            // (a layout shift of 0.22, issue 45).
            <div className={cx(s.buyAccount, s.buyAccountPending)} aria-busy="true" />
          )}
          {/* 3. currency: after the e-mail block (spec 000 §2), on one line of its own */}
          <CurrencySelector currencies={catalog.currencies} value={currency} onChange={onCurrency} />
          {/* 4. renewal box */}
          {p?.isRenewal && !downgrade.downgraded ? (
            <RenewalBox
              preview={p}
              currency={currency}
              business={isBusiness}
              onDowngrade={() => {
                downgrade.switchToIndividual(p.regionsDisabled === true || (p.lockedAddOns ?? []).length > 0);
                dispatch({ type: 'set', patch: { businessDowngrade: true } });
              }}
            />
          ) : null}
          {downgradeWarning ? <DowngradeWarning /> : null}
          {/* 5. legacy replacement */}
          {p?.legacyPlanReplaced ? <LegacyNotice replacedPlan={p.replacedPlan} /> : null}
          {/* 6. plans */}
          <PlansSection catalog={catalog} currency={currency} plan={plan} bundle={query.hjopaBundle} military={isMilitary || query.military} international={query.militaryInternational} error={errors.planError} onPlan={onPlan} onPointerChoice={collapsePlans} {...shell('plans')} />
          {/* 7. regions */}
          {regionMode !== 'none' && !query.hjopaBundle ? (
            <RegionsSection {...cart} mode={regionMode === 'radio' ? 'radio' : 'checkbox'} disabled={p?.regionsDisabled === true} errors={errors.regionErrors} onChoose={choose} {...shell('regions')} />
          ) : null}
          {/* 8. add-ons */}
          {!query.hjopaBundle ? <AddOnsSection {...cart} plan={plan} business={isBusiness} onToggle={toggle} {...shell('addOns')} /> : null}
          {/* 9–14: the optional sections */}
          <OptionalSections
            {...cart}
            charts={p?.chartIfrVisible === true}
            chartsDisabled={p?.chartCoveragesDisabled === true}
            militarySupplements={p?.militarySupplementsVisible === true}
            military={isMilitary}
            bundle={query.hjopaBundle}
            avionicsAccount={loggedIn ? me.accountUuid : undefined}
            accountNumber={config.jeppCustomerNo}
            onAccountNumber={onAccountNumber}
            onToggle={toggle}
            onChoose={choose}
            shell={shell}
          />
          {/* 15. licence quantity */}
          {isBusiness || isMilitary ? (
            <QuantitySection
              value={config.quantity}
              priced={quantity}
              min={isBusiness ? 2 : 1}
              max={100}
              salesContact={links.salesEmail}
              onChange={(v) => dispatch({ type: 'set', patch: { quantity: v } })}
              confirm={quantityCheck.confirm}
              {...shell('quantity')}
              expanded
            />
          ) : null}
          {needsLicense || isBusiness ? (
            <Agreements
              license={needsLicense}
              eula={isBusiness}
              quantity={quantity}
              licenseChecked={config.isLicenseAgreementChecked}
              eulaChecked={config.isEulaChecked}
              attempted={buy.attempted}
              onLicense={(v) => dispatch({ type: 'set', patch: { isLicenseAgreementChecked: v } })}
              onEula={(v) => dispatch({ type: 'set', patch: { isEulaChecked: v } })}
              href={href}
            />
          ) : null}
          <PromoBox
            codes={codes}
            onAdd={onAddCode}
            onRemove={onRemoveCode}
            errors={errors.codeErrors}
            // ?code= (spec 001 §2; the gift e-mail's redeem link): applied as if typed, once
            // the first price is in, so the check sees the cart the buyer will pay for.
            prefill={p ? (query.code ?? undefined) : undefined}
          />
          {paymentShown ? (
            <PaymentSection
              payWith={payment.payWith}
              onPayWith={payment.setPayWith}
              stored={payment.storedMethod.data}
              readers={payment.readers.data ?? NONE}
              reader={payment.reader}
              onReader={payment.setReader}
              hosted={hosted}
              keptCard={buy.keptCard}
              onOtherCard={buy.otherCard}
              cardholderName={config.cardholderName}
              zipcode={config.zipcode}
              country={config.country}
              businessId={config.businessIdentificationNo}
              vatIdCheck={p?.vatIdCheck}
              showGdpr={p?.euConsentRequired === true || query.gdprShow}
              gdpr={config.isGdprCompliant}
              showMarketing={payment.askMarketing}
              marketing={payment.marketing}
              onMarketing={payment.setMarketing}
              fieldErrors={errors.fieldErrors}
              onChange={onPaymentChange}
              onCardHelp={onCardHelp}
              onPay={onPay}
            />
          ) : (
            <div className={s.buyPaymentPending} ref={paymentPlace} />
          )}
        </div>
        <InvoicePanel preview={p} currency={currency} updating={previewQuery.isFetching} error={repriceError}>
          <HumanVerification handle={human} />
          <ErrorSummary errors={errors.shown} />
          {buy.waitingForCard ? (
            <p role="status" data-testid="waiting-for-card">
              Present the customer’s card to card reader {buy.reader}: the order goes on once the reader has read it.
            </p>
          ) : null}
          {buy.processing ? (
            <p role="status" data-testid="still-processing">
              {STILL_PROCESSING}
            </p>
          ) : null}
          {modals.eligibilityPage ? (
            <p>
              <a href={modals.eligibilityPage} data-testid="eligibility-link">
                Verify your military eligibility
              </a>
            </p>
          ) : null}
          {(p?.adjustments ?? []).length > 0 ? (
            <ul className={s.buyAdjustments} aria-label="Changes made to your selection">
              {p!.adjustments!.map((a) => (
                <li key={`${a.addOnCode}-${a.action}`}>{a.reason}</li>
              ))}
            </ul>
          ) : null}
          <PayTerms
            links={links}
            action={total ? `Pay ${total}` : 'Pay'}
            renewal={
              payable && p?.renewalDate && num(p.renewalAmountInCents) > 0
                ? { amount: formatMoney(num(p.renewalAmountInCents), (p.invoice?.currency as CurrencyCode) ?? currency), period: durationMonths === 3 ? 'three months' : 'year', date: renewalDateText(p.renewalDate) }
                : undefined
            }
          />
          <Button size="large" className={s.buyPurchase} disabled={buy.submitting || !payable || previewQuery.isFetching || previewPending || licenseMissing || quantityUnconfirmed} onClick={() => void buy.purchase()} aria-busy={buy.submitting || undefined}>
            {buy.waitingForCard ? `Waiting for the card on ${buy.reader}…` : buy.submitting ? 'Processing…' : `Pay${total ? ` ${total}` : ''}`}
          </Button>
        </InvoicePanel>
        <PayBar total={total} onJump={onJumpToPayment} />
      </div>
      <LoginModal open={modals.login !== undefined} heading={modals.login ?? LOGIN_REQUIRED} onClose={() => modals.setLogin(undefined)} onLogin={onLogin} initialEmail={config.email} create={signup} />
      <CurrencyNotAllowedModal message={isMilitary ? undefined : modals.currencyMessage} onClose={() => modals.setCurrencyMessage(undefined)} />
      <PlanChangeModal change={p?.planChange} warning={downgradeWarning ? DOWNGRADE_ALLOCATIONS : undefined} open={modals.planChangeOpen} errors={modals.planChangeErrors} onProceed={() => void buy.proceedWithChange()} onKeepEditing={() => modals.setPlanChangeOpen(false)} />
      <ExpiredAllocationsModal
        allocations={modals.allocations}
        onChoose={(keep) => {
          dispatch({ type: 'set', patch: allocationsChoice(modals.allocations ?? [], keep, config.quantity) });
          modals.setAllocations(undefined);
          buy.setSubmitErrors([]);
        }}
      />
      <PromoNoticeModal
        requirement={modals.promo}
        onClose={() => {
          if (modals.promo?.code) dispatch({ type: 'viewed', codes: [modals.promo.code] });
          modals.setPromo(undefined);
        }}
      />
      <CreditCardModal open={modals.cardHelp} onClose={() => modals.setCardHelp(false)} />
    </div>
  );
}
