import { lazy, memo, startTransition, Suspense, useCallback, useDeferredValue, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Button, CheckboxField, cx, ErrorState, ErrorSummary, HumanVerification, LoadingState, MSG_CAPTCHA_ERROR, MSG_EU_CONSENT, NotificationBanner, PayTerms, SectionBlock, TextField, useTapOrClick, type HostedCardFieldsHandle, type HumanVerificationHandle } from '@hangar/ui';
import { VAT_NOTE, formatMoney, isCurrencyCode, showsVatNote, type CurrencyCode } from '@hangar/money';
import { ApiError, ATTEMPT_CLOSED, DEFAULT_LINKS, featureStatus, PROCESSING_TOO_LONG, STILL_PROCESSING, waitWhileProcessing, num, priceIn, unwrap, visibleEntries, type Catalog, type CatalogEntry, type WireAllocation, type WireMe, type WirePromoInfoRequirement } from '@hangar/api-client';
import { analytics } from '@hangar/analytics';
import { defaultCurrency, onSalesModeChange, payWithCardReader, readSalesMode, syncKiosk, withKiosk, type SalesModeSetting } from '@hangar/storefront';
import { apiClient } from './api';
import { parseBuyLocation, withCurrency, type BuyLocation, type BuyQuery } from './query';
import { initialConfiguration, needsAdopt, reduce, toWire, type Action, type Configuration } from './configuration';
import { useCardReaders, useCatalog, useLinks, useMarketingConsent, useMe, useNotice, usePaymentMethod, usePreview, type Preview } from './hooks';
import { InvoicePanel, renewalDateText, visibleLines } from './InvoicePanel';
import { AccountBlock as AccountBlockView } from './sections/Account';
import { ChoiceSection, OptionList, priceText, type Option } from './sections/Choices';
import { ChartsSection as ChartsSectionView, type Platform } from './sections/Charts';
import { AvionicsLinker } from './avionics/AvionicsLinker';
import { bigChange, QuantitySection } from './sections/Quantity';
import { CurrencySelector as CurrencySelectorView } from './sections/CurrencySelector';
import { allocationsChoice, CreditCardModal, CurrencyNotAllowedModal, ExpiredAllocationsModal, LoginModal, PlanChangeModal, PromoNoticeModal } from './modals/Modals';
import { type KeptCard, PaymentSection as PaymentSectionView, type PaymentSectionProps, type PayWith } from './payment/PaymentSection';
import { normalizeCountry } from './payment/countries';
import { AUTH_FAILED, LOGIN_REQUIRED, login, logout } from './account';
import { newIdempotencyKey, submit, successUrl, validatePromo } from './submit';
import { useSignupAtCheckout } from './signup';
import type { CoveredRegion } from './sections/CoverageMap';
import { regionKey } from './sections/regionKey';
import { useEvent, useStable } from './render';
import s from './buy.module.css';

// A query answer renders the configurator again; these sections render again only when what
// they show changed (their props are kept stable: render.ts).
const AccountBlock = memo(AccountBlockView);
const ChartsSection = memo(ChartsSectionView);
const CurrencySelector = memo(CurrencySelectorView);
const PaymentSection = memo(PaymentSectionView);
const NONE: never[] = [];

// The coverage map (d3-geo and the outlines) is its own chunk, outside /buy's initial budget.
const CoverageMap = lazy(() => import('./sections/CoverageMap'));


/** Spec 000 §8: the available-plans failure message. */
export const CONNECT_ERROR = 'There was a problem connecting.';
export { CORRECT_FOLLOWING } from '@hangar/ui';
/** Sections expanded by default (spec 000 §2). */
const DEFAULT_EXPANDED = ['plans', 'regions', 'addOns'];

const PLAN_GROUPS = ['INDIVIDUAL', 'THREE_MONTH', 'BYOP', 'BUSINESS', 'MILITARY', 'BUNDLE'];

export interface BuyPageProps {
  /** The address; defaults to the page's. */
  location?: BuyLocation;
  /** Full navigation (success page, reloads); injectable for tests. */
  navigate?: (url: string) => void;
  reload?: () => void;
}

const browserLocation = (): BuyLocation =>
  typeof window === 'undefined' ? { pathname: '/buy', search: '', hash: '' } : { pathname: window.location.pathname, search: window.location.search, hash: window.location.hash };

export function BuyPage({ location, navigate = (u) => window.location.assign(u), reload = () => window.location.reload() }: BuyPageProps) {
  const query = useMemo(() => parseBuyLocation(location ?? browserLocation()), [location]);
  const catalog = useCatalog();
  const me = useMe();
  // The notice banner stands above the heading: fetched with the catalogue (the runtime
  // config, a few hundred bytes) and waited for with it, so it is there in the first full
  // render instead of pushing the whole page down when it arrives (a layout shift).
  const notice = useNotice('buy');

  // The page does not wait for the session: it renders as a guest and the account block
  // follows when identity answers (the largest paint must not wait for two services).
  // The configurator's first render is the page's largest piece of work (hundreds of ms on a
  // phone). React Query hands the catalogue over in a synchronous render; deferring it
  // makes that render React's interruptible background work, in slices that leave the
  // main thread free, instead of one long task that blocks input. The notice gates it too,
  // so what is deferred is both being in: deferring the catalogue alone left the notice, when
  // it answered last, to render the whole configurator synchronously (a 96 ms task on a
  // phone, issue 31).
  const data = useDeferredValue(notice.isPending ? undefined : catalog.data);
  if (catalog.isPending || notice.isPending || (!data && !catalog.isError)) {
    return (
      <div className={s.buy} data-remote="buy">
        <h1>{query.military ? 'Military Plans' : 'Your Plan'}</h1>
        <LoadingState label="Loading plans…" />
      </div>
    );
  }
  if (catalog.isError) {
    return (
      <div className={s.buy} data-remote="buy">
        <h1>Your Plan</h1>
        <ErrorState
          message={CONNECT_ERROR}
          detail={catalog.error.retryable ? 'The plan catalogue did not answer. Please try again.' : catalog.error.message}
          onRetry={() => void catalog.refetch()}
        />
      </div>
    );
  }
  return <Configurator catalog={data ?? catalog.data} me={me.data ?? GUEST} meReady={!me.isPending} query={query} navigate={navigate} reload={reload} />;
}

const GUEST: WireMe = { loggedIn: false };

interface ConfiguratorProps {
  catalog: Catalog;
  me: WireMe;
  meReady: boolean;
  query: BuyQuery;
  navigate: (url: string) => void;
  reload: () => void;
}

/** Messages that belong to a field, so the field shows them too. */
const FIELD_OF: Record<string, string> = {
  'Please enter your email address.': 'email',
  'Please enter your organization name.': 'organizationName',
  'please confirm': 'license',
  'Please agree to our terms of use.': 'eula',
  'Name cannot be blank': 'cardholderName',
  'Postal Code cannot be blank': 'zipcode',
  'Please select a country': 'country',
  'Credit Card cannot be blank': 'card',
  [MSG_EU_CONSENT]: 'gdpr',
  "Please enter the cardholder's first and last name.": 'cardholderName',
};

/** Preview messages about a section's choices, shown in that section too. */
const SECTION_OF: Record<string, string> = {
  'No region(s) selected.': 'regions',
  "Regions cannot be changed while your licenses are allocated to users. Make changes on the users page of the product's web site.": 'regions',
};

/** After a decline the frame's number and CVV are empty: the buyer is told why. */
export const CARD_AGAIN = 'Your card was not charged. Enter the card again, or use another card.';

/** Spec 000 §8: the account buys in its own currency. */
const CURRENCY_NOT_ALLOWED = 'CURRENCY_NOT_ALLOWED_FOR_ACCOUNT';
const MSG_CURRENCY_NOT_ALLOWED = 'Sorry, that currency is not allowed for your account.';
/** Military plans are sold to buyers who proved eligibility (spec 001 §4). */
const MILITARY_ELIGIBILITY_REQUIRED = 'MILITARY_ELIGIBILITY_REQUIRED';

const DOWNGRADE_ALLOCATIONS =
  'Your organization’s licences are allocated to users. An individual plan has one licence, yours: when this order goes through, the users lose the licences and products allocated to them.';

/** The eligibility page of a military cart: the international one for _intl plans. */
export function eligibilityPath(addOns: readonly string[]): string {
  return addOns.some((c) => c.startsWith('mfb_') && c.endsWith('_intl')) ? '/buy/military_intl' : '/buy/military';
}

function groupEntries(catalog: Catalog, group: string, currency: CurrencyCode): CatalogEntry[] {
  return visibleEntries(catalog, group, currency);
}

function Configurator({ catalog, me, meReady, query, navigate, reload }: ConfiguratorProps) {
  const [config, dispatch] = useReducer(reduce, query, initialConfiguration);
  const adopt = useCallback((p: Preview) => dispatch({ type: 'adopt', preview: p }), []);
  const { preview: p, pending: previewPending, query: previewQuery } = usePreview(config, adopt, needsAdopt);
  const currency = config.currency;
  const loggedIn = me.loggedIn === true;
  const verb = useTapOrClick();
  const note = showsVatNote(currency) ? VAT_NOTE : undefined;
  // Kiosk mode is the storefront's, shared with the shell (one session-storage flag).
  const kiosk = useMemo(() => syncKiosk(query.kiosk ? '?kiosk=true' : ''), [query.kiosk]);
  const href = (h: string) => (kiosk ? withKiosk(h) : h);

  // The payment form (its card frame, 250 countries) is below the fold on every screen: it
  // mounts in a render of its own once the choices are on screen, so the page's first commit
  // and layout are one long task less on a phone (issue 31: /buy's blocking time).
  const [paymentShown, setPaymentShown] = useState(false);
  useEffect(() => startTransition(() => setPaymentShown(true)), []);

  const isBusiness = p?.isBusiness === true;
  const isMilitary = p?.isMilitary ?? config.military;
  const notice = useNotice('buy').data;
  const links = useLinks().data ?? DEFAULT_LINKS;
  const salesEmail = links.salesEmail;
  const quantity = num(p?.quantity, 1);

  // The subscription's licence count, from the renewal's first preview: a large step up from
  // it is confirmed before Pay (issue 45: an owner going from 5 to 8 paid for 58). A new cart
  // has no count to step from. Set while rendering, once the renewal is in.
  const [startQuantity, setStartQuantity] = useState<{ n: number; renewal: boolean } | undefined>();
  if (!startQuantity && p?.isRenewal && (isBusiness || isMilitary) && quantity > 0) setStartQuantity({ n: quantity, renewal: true });
  const [confirmedQuantity, setConfirmedQuantity] = useState(0);
  const quantityUnconfirmed = startQuantity !== undefined && (isBusiness || isMilitary) && bigChange(startQuantity.n, quantity) && confirmedQuantity !== quantity;
  const onQuantityConfirmed = useEvent((checked: boolean) => setConfirmedQuantity(checked ? quantity : 0));

  // ---- sections expanded
  const [expanded, setExpanded] = useState<string[]>(() => [
    ...new Set([...DEFAULT_EXPANDED, ...query.sections, ...(query.military ? ['jeppesen'] : []), ...(query.hjopaBundle ? ['jetMaker'] : [])]),
  ]);
  // One toggle per section for the page's life, so a memoized section keeps its props.
  const toggles = useRef(new Map<string, (open: boolean) => void>());
  const onExpanded = (id: string) => {
    let f = toggles.current.get(id);
    if (!f) {
      f = (open: boolean) => setExpanded((xs) => (open ? [...xs, id] : xs.filter((x) => x !== id)));
      toggles.current.set(id, f);
    }
    return f;
  };
  const shell = (id: string) => ({ expanded: expanded.includes(id), onExpandedChange: onExpanded(id), note });
  const scrolled = useRef(false);
  useEffect(() => {
    const first = query.sections[0];
    if (scrolled.current || !first || !p) return;
    scrolled.current = true;
    document.getElementById(`section-${first}`)?.scrollIntoView?.({ block: 'start' });
  }, [query.sections, p]);

  // ---- the logged-in user and the address (spec 001 §4)
  useEffect(() => {
    if (!loggedIn) return;
    const wrongAccount = query.accountId && me.accountUuid && query.accountId !== me.accountUuid.toLowerCase();
    const wrongEmail = query.email && me.email && query.email.toLowerCase() !== me.email.toLowerCase();
    if (wrongAccount || wrongEmail) void logout().then(() => reload());
  }, [loggedIn, me, query, reload]);

  // ---- modals
  const [loginOpen, setLoginOpen] = useState<string | undefined>(query.loginFailed ? AUTH_FAILED : query.promptLogin ? LOGIN_REQUIRED : undefined);
  const [currencyMessage, setCurrencyMessage] = useState<string | undefined>();
  // The military buy page to prove eligibility on, when the server asked for it.
  const [eligibilityPage, setEligibilityPage] = useState<string | undefined>();
  // A preview of an account this session may not act on (a /buy#/account/{id} link opened
  // by someone else, or logged out) answers 401 with requireLogin: log in first (spec 000
  // §4 Login).
  const previewError = previewQuery.error;
  useEffect(() => {
    if (previewError instanceof ApiError && previewError.status === 401) setLoginOpen(LOGIN_REQUIRED);
  }, [previewError]);
  const [planChangeOpen, setPlanChangeOpen] = useState(false);
  // An owner whose licences are allocated to users, switching the business to an individual
  // plan, is told what happens to those users first (issue 31: not a word about them). Taken
  // from the business cart's preview when the switch is chosen; the downgrade cart has none.
  // The warning stays once checkout has answered with the individual cart (the switch is
  // adopted, businessDowngrade is false again) and goes when the cart is a business's again.
  // Reset while rendering, not in an effect: an effect of the render that adopted the business
  // cart could run after the click that set the flag (the price answer renders in a
  // transition, whose effects React may flush late) and wipe it.
  const [downgradeDropsUsers, setDowngradeDropsUsers] = useState(false);
  const [businessCart, setBusinessCart] = useState(isBusiness);
  if (businessCart !== isBusiness) {
    setBusinessCart(isBusiness);
    if (isBusiness) setDowngradeDropsUsers(false);
  }
  const downgradeWarning = downgradeDropsUsers && (config.businessDowngrade || !isBusiness);
  const [planChangeErrors, setPlanChangeErrors] = useState<string[]>([]);
  const [confirmedChange, setConfirmedChange] = useState<string | undefined>();
  const [allocations, setAllocations] = useState<WireAllocation[] | undefined>();
  const [cardHelp, setCardHelp] = useState(false);
  const [promo, setPromo] = useState<WirePromoInfoRequirement | undefined>();
  const seenNotices = useRef(new Set<string>());
  useEffect(() => {
    // Notices the server asks to show (EAA2020 once, BUNDLE2020 always).
    const req = (p?.promoInfoRequirements ?? []).find((r) => r.code && !seenNotices.current.has(`${r.code}:${p?.requestCounter}`));
    if (!req || promo) return;
    seenNotices.current.add(`${req.code}:${p?.requestCounter}`);
    setPromo(req);
  }, [p, promo]);

  // ---- analytics: add-to-cart when a changed invoice arrives (the shell logs the page view)
  const lastTotal = useRef<string>('');
  useEffect(() => {
    const inv = p?.invoice;
    if (!inv) return;
    const sig = `${inv.currency}:${num(inv.totalInCents)}:${(p.addOns ?? []).join(',')}`;
    if (sig === lastTotal.current) return;
    lastTotal.current = sig;
    try {
      analytics().addToCart({ currency: inv.currency ?? '', value: num(inv.totalInCents) / 100, items: analyticsItems(p), accountId: me.accountUuid || undefined, source: 'buy' });
    } catch (e) {
      // Analytics never breaks the page; a missing parameter is reported, not thrown.
      console.error((e as Error).message);
    }
  }, [p, me.accountUuid]);

  // ---- payment
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
  const hosted = useRef<HostedCardFieldsHandle>(null);
  // The card tokenised for a click that submit refused before charging (a form problem, a
  // changed price): the frame cleared its fields, and its single-use nonce is still unspent,
  // so it pays the next click unless the buyer asks for another card.
  const [keptCard, setKeptCard] = useState<KeptCard>();
  useEffect(() => setKeptCard(undefined), [config.cardholderName, config.zipcode]);
  const otherCard = useCallback(() => setKeptCard(undefined), []);
  const human = useRef<HumanVerificationHandle>(null);
  const [submitting, setSubmitting] = useState(false);
  const [submitErrors, setSubmitErrors] = useState<string[]>([]);
  // Waiting for an order another request is still processing (409 ORDER_IN_PROGRESS).
  const [processing, setProcessing] = useState(false);
  // What went wrong with the card itself (the frame refused it, the bank declined it): shown
  // next to the card fields as well as in the summary.
  const [cardErrors, setCardErrors] = useState<string[]>([]);
  const [attempted, setAttempted] = useState(false);
  const attempt = useRef<{ key: string; quote: string } | undefined>(undefined);

  // ---- derived lists
  const planCodes = useMemo(() => PLAN_GROUPS.flatMap((g) => catalog.groups[g]?.entries.map((e) => e.addOnCode) ?? []), [catalog]);
  const addOns = useStable(config.addOns.length > 0 ? config.addOns : (p?.addOns ?? NONE));
  const plan = addOns.find((c) => planCodes.includes(c));
  const locked = new Set(p?.lockedAddOns ?? []);

  const planFamilies: Array<{ id: string; title: string; entries: CatalogEntry[] }> = query.hjopaBundle
    ? [{ id: 'bundle', title: 'Jet-Maker Bundles', entries: groupEntries(catalog, 'BUNDLE', currency) }]
    : isMilitary || query.military
      ? [
          {
            id: 'military',
            title: 'Military Plans',
            entries: groupEntries(catalog, 'MILITARY', currency).filter((e) => (query.militaryInternational ? e.addOnCode.endsWith('_intl') : !e.addOnCode.endsWith('_intl'))),
          },
        ]
      : [
          { id: 'individual', title: 'Individual Plans', entries: [...groupEntries(catalog, 'INDIVIDUAL', currency), ...groupEntries(catalog, 'THREE_MONTH', currency)] },
          { id: 'business', title: 'Business Plans', entries: groupEntries(catalog, 'BUSINESS', currency) },
        ];
  const family = query.hjopaBundle ? 'Bundle' : isMilitary ? 'Military Plans' : isBusiness ? 'Business Plans' : 'Individual Plans';
  const bundleName = query.hjopaBundle ? catalog.groups.BUNDLE?.entries[0]?.title ?? 'HondaJet Bundle' : undefined;

  const regionEntries = catalog.groups.REGIONS?.entries ?? [];
  const includedRegion = addOns.find((c) => c.startsWith('included_'));
  const includedAsAdd = includedRegion?.replace(/^included_/, 'add_');
  const regionMode = p?.regionMode ?? 'checkbox';
  const regionOptions: Option[] = useStable(groupEntries(catalog, 'REGIONS', currency).map((e) => {
    const isIncluded = e.addOnCode === includedAsAdd;
    return {
      entry: e,
      checked: isIncluded || addOns.includes(e.addOnCode),
      disabled: isIncluded || p?.regionsDisabled === true || locked.has(e.addOnCode),
      note: isIncluded ? 'Included with your plan' : undefined,
      priceLabel: isIncluded ? 'Included' : undefined,
      popover: p?.regionsDisabled ? 'Your licenses are allocated to users, so regions follow your subscription. Change allocations on the users page of the product web site.' : undefined,
    };
  }));

  const planEntry = planFamilies.flatMap((f) => f.entries).find((e) => e.addOnCode === plan);
  const planSummary = planEntry ? `${planEntry.title} · ${priceText(planEntry, currency)}` : 'Choose a plan';
  const extraRegions = regionOptions.filter((o) => o.checked && o.entry.addOnCode !== includedAsAdd).map((o) => o.entry.title);
  const regionSummary = `${regionTitle(regionEntries, includedRegion)} included${extraRegions.length ? ` + ${extraRegions.join(', ')}` : ''}`;
  const coveredRegions: CoveredRegion[] = useStable(regionOptions.flatMap((o) => {
    const key = regionKey(o.entry.addOnCode);
    return o.checked && key ? [{ key, title: o.entry.title }] : [];
  }));

  const option = (e: CatalogEntry): Option => ({
    entry: e,
    checked: addOns.includes(e.addOnCode),
    disabled: locked.has(e.addOnCode),
    popover: locked.has(e.addOnCode) ? 'This product is allocated to users. Change it on the users page of the product web site.' : undefined,
  });
  // What the plan includes or cannot have, read from forPlans exactly as /pricing and
  // checkout read it (featureStatus; checkout's rules.includedWith): one truth on every page.
  const planGroup = plan ? Object.values(catalog.groups).find((g) => g.entries.some((e) => e.addOnCode === plan))?.entries ?? [] : [];
  const planName = planGroup.find((e) => e.addOnCode === plan)?.title ?? '';
  const featureOption = (e: CatalogEntry): Option => {
    const status = plan ? featureStatus(e, plan, planGroup) : 'addon';
    if (status === 'included') return { ...option(e), checked: true, disabled: true, note: `Included with ${planName}`, priceLabel: 'Included', quietNote: true };
    if (status === 'unavailable') return { ...option(e), checked: false, disabled: true, note: `Not available with ${planName}`, priceLabel: 'Not available', quietNote: true };
    return option(e);
  };
  const features = groupEntries(catalog, 'FEATURES', currency).map(featureOption);
  const businessFeatures = isBusiness ? groupEntries(catalog, 'BUSINESS_FEATURES', currency).map(featureOption) : [];
  const addOnOptions = useStable([...features, ...businessFeatures]);
  const milSupp = useStable(groupEntries(catalog, 'JEPPESEN_MILITARY_SUPPLEMENT_PLANS_APP', currency).filter((e) => !e.addOnCode.endsWith('_intl')).map(option));
  const jetRunway = useStable(groupEntries(catalog, 'JET_RUNWAY_ANALYSIS', currency).map(option));
  const tpRunway = useStable(groupEntries(catalog, 'TURBOPROP_RUNWAY_ANALYSIS', currency).map(option));
  const vfr = useStable([...groupEntries(catalog, 'NATIONAL_VFR_PACKAGES', currency), ...groupEntries(catalog, 'ALL_JEPPESEN_EU_CHART', currency)].map(option));
  const jetMaker = useStable((catalog.groups.JET_MAKER_RUNWAY_ANALYSIS?.entries ?? []).map((e) => ({ ...option(e), priceLabel: 'Included' })));

  // A choice the buyer made (not the address's or the server's): until one, a selection
  // the cart still lacks (the bundle's HondaJet model) is not yet an error to show.
  const [chosen, setChosen] = useState(false);
  const choose = (a: Action) => {
    setChosen(true);
    dispatch(a);
  };
  const toggle = useEvent((code: string) => choose({ type: 'toggle', code }));
  const planOptions = useStable(planFamilies.map((f) => f.entries.map((e): Option => ({ entry: e, checked: plan === e.addOnCode }))));
  const onPlan = useEvent((code: string) => choose({ type: 'selectPlan', plan: code, planCodes }));
  const onRegion = useEvent((code: string) =>
    regionMode === 'radio' ? choose({ type: 'pick', code: code.replace(/^add_/, 'included_'), group: regionEntries.map((e) => e.addOnCode) }) : toggle(code),
  );
  const onJetMaker = useEvent((code: string) => choose({ type: 'pick', code, group: jetMaker.map((o) => o.entry.addOnCode) }));
  const mapShown = expanded.includes('regions');
  const coverageMap = useMemo(
    () =>
      mapShown ? (
        <Suspense fallback={<div className={s.buyMapSvg} aria-hidden="true" />}>
          <CoverageMap regions={coveredRegions} />
        </Suspense>
      ) : null,
    [mapShown, coveredRegions],
  );
  const avionicsAccount = loggedIn ? me.accountUuid : undefined;
  // Links the avionics databases to a partner account; nothing without one.
  const avionics = useMemo(() => <AvionicsLinker accountUuid={avionicsAccount} />, [avionicsAccount]);
  const coverages = useStable(groupEntries(catalog, 'JEPPESEN_PLANS', currency));

  // ---- errors
  const codeErrors = useStable((p?.codeErrors ?? []).map((e) => e.message ?? '').filter(Boolean));
  const selectionErrors = [...(p?.planErrors ?? []), ...(chosen || attempted ? (p?.selectionErrors ?? []) : [])];
  // What the preview says is wrong with the cart is shown as soon as it answers (issue 45: "No
  // region(s) selected." waited for Pay, after the card was typed); only what belongs to a
  // field the buyer has yet to fill waits for the first Pay.
  const previewErrors = (p?.errors ?? []).filter((e) => attempted || !FIELD_OF[e]);
  const regionErrors = useStable(previewErrors.filter((e) => SECTION_OF[e] === 'regions'));
  const shownErrors = [...new Set([...selectionErrors, ...codeErrors, ...previewErrors, ...submitErrors])];
  const errorsOfField: Record<string, string[]> = {};
  for (const e of shownErrors) {
    const f = FIELD_OF[e];
    if (f) (errorsOfField[f] ??= []).push(e);
  }
  if (cardErrors.length > 0) errorsOfField.card = [...new Set([...(errorsOfField.card ?? []), ...cardErrors])];
  const fieldErrors = useStable(errorsOfField);
  const childMessage = (p?.errorCodes ?? []).includes('CHILD_ACCOUNT_PURCHASE') ? p?.planErrors?.[0] : undefined;
  // The account buys in its own currency: the preview says so and the modal opens (never
  // for military carts, whose currency the server fixes).
  const currencyRefused = (p?.errorCodes ?? []).includes(CURRENCY_NOT_ALLOWED);
  useEffect(() => {
    if (currencyRefused) setCurrencyMessage(MSG_CURRENCY_NOT_ALLOWED);
  }, [currencyRefused]);

  // ---- actions
  const onLogin = useEvent(async (u: string, pw: string, human?: string): Promise<string | undefined> => {
    const r = await login(u, pw, human);
    if (!r.ok) return r.message;
    // From the buy page, first go to the account route, then reload. Without ?prompt=login:
    // it asked for this login, which is done (it opened the modal again after the reload).
    if (typeof window !== 'undefined') {
      const url = new URL(window.location.href);
      url.searchParams.delete('prompt');
      if (r.accountUuid) url.hash = `#/account/${r.accountUuid}`;
      window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    }
    reload();
    return undefined;
  });
  const onLogout = useEvent(async () => {
    const errs = await logout();
    if (errs.length > 0) setSubmitErrors(errs);
    if (typeof window !== 'undefined' && window.location.hash.startsWith('#/account/')) window.history.replaceState(null, '', window.location.pathname + window.location.search);
    reload();
  });

  // No currency in the address: the storefront's default (the currency cookie, then the
  // visitor's location, USD when that fails). A buyer who already picked one keeps it.
  const currencyPicked = useRef(false);
  useEffect(() => {
    if (query.requestedCurrency || query.military) return;
    const ac = new AbortController();
    void defaultCurrency(null, { signal: ac.signal }).then((c) => {
      if (ac.signal.aborted || currencyPicked.current || c === config.currency) return;
      dispatch({ type: 'set', patch: { currency: c } });
    });
    return () => ac.abort();
    // Once per page: later currency changes are the buyer's.
  }, []);
  // A military cart is priced in its fixed currency: follow the server's invoice.
  const serverCurrency = p?.invoice?.currency;
  useEffect(() => {
    if (isMilitary && isCurrencyCode(serverCurrency) && serverCurrency !== config.currency) dispatch({ type: 'set', patch: { currency: serverCurrency } });
  }, [isMilitary, serverCurrency, config.currency]);

  const onCurrency = useEvent(async (c: CurrencyCode) => {
    if (c === currency) return;
    currencyPicked.current = true;
    if (!isMilitary && (loggedIn || config.email || config.accountId)) {
      try {
        const r = await unwrap(apiClient().checkout.POST('/buy/api/currency/validate', { body: { currency: c, email: config.email, accountId: config.accountId, military: isMilitary } }));
        if (r.status === 'fail') {
          setCurrencyMessage(r.message || 'Sorry, that currency is not allowed for your account.');
          return;
        }
      } catch {
        /* the preview will say what is wrong */
      }
    }
    // The choices stay: only the currency changes, and the preview prices them again.
    dispatch({ type: 'set', patch: { currency: c } });
    if (typeof window !== 'undefined') window.history.replaceState(window.history.state, '', withCurrency(window.location.href, c));
  });

  const onChart = useEvent((code: string, platform: Platform) =>
    choose({ type: 'chart', addOnCode: code, platform: platform === 'None' ? 'Both' : platform, checked: platform !== 'None' }),
  );

  const paymentFormErrors = (): string[] => {
    if (payWith === 'stored') return [];
    const errs: string[] = [];
    const name = config.cardholderName.trim();
    if (name === '') errs.push('Name cannot be blank');
    else if (name.split(/\s+/).length < 2) errs.push('Please enter the cardholder name as it appears on the card (first and last name).');
    if (config.zipcode.trim() === '') errs.push('Postal Code cannot be blank');
    if (config.country === '') errs.push('Please select a country');
    if (payWith === 'reader' && !reader) errs.push('Please choose a card reader.');
    return errs;
  };

  const purchase = async (confirmed = false) => {
    // Never on an answer the screen has not caught up with (it is rendering in a transition).
    if (submitting || !p || previewPending) return;
    setAttempted(true);
    setSubmitErrors([]);
    setCardErrors([]);
    const quote = p.quoteHash ?? '';
    // A plan change that needs confirmation blocks payment until confirmed.
    if (p.planChange?.needsConfirmation && !confirmed && confirmedChange !== quote) {
      setPlanChangeErrors([]);
      setPlanChangeOpen(true);
      return;
    }
    const formErrors = [...paymentFormErrors(), ...(human.current?.problems() ?? [])];
    if (formErrors.length > 0) {
      setSubmitErrors(formErrors);
      return;
    }
    setSubmitting(true);
    try {
      try {
        analytics().beginCheckout({ currency, value: num(p.invoice?.totalInCents) / 100, items: analyticsItems(p), accountId: me.accountUuid || undefined, source: 'buy' });
      } catch (e) {
        console.error((e as Error).message);
      }
      // No /validate first: submit validates, and its refusal carries what the page shows.
      const wire = { ...toWire(config, { cartId: '', counter: 0 }), recaptchaValue: human.current?.value() ?? '' };
      // The payment method: a nonce from the hosted fields or the wallet, or the stored one.
      let nonce: string | undefined;
      let token: string | undefined;
      let card = keptCard;
      if (payWith === 'stored') {
        token = storedMethod.data?.paymentMethod?.token;
      } else if (payWith === 'wallet') {
        const r = await hosted.current?.tokenizeWallet(config.email || me.email || '');
        if (!r || !r.ok) {
          setSubmitErrors([r && !r.ok ? r.message : 'The payment service did not answer.']);
          return;
        }
        nonce = r.nonce;
      } else if (payWith === 'reader') {
        // The storefront's card-present payment: vault on the reader, poll every 1000 ms.
        token = (await payWithCardReader(config.email || me.email || '', reader, { recaptchaValue: human.current?.value() ?? '' })).paymentMethod;
      } else if (keptCard) {
        nonce = keptCard.nonce;
      } else {
        const r = await hosted.current?.tokenize(config.cardholderName.trim(), config.zipcode.trim());
        if (!r || !r.ok) {
          const msg = r && !r.ok ? r.message : 'Credit Card cannot be blank';
          setSubmitErrors([msg]);
          if (r && !r.ok && r.customer) setCardErrors([msg]);
          return;
        }
        nonce = r.nonce;
        card = { nonce: r.nonce, cardType: r.details?.cardType, lastFour: r.details?.lastFour };
      }
      analytics().addPaymentInfo();
      // One idempotency key per attempt: the same order retried keeps it.
      if (!attempt.current || attempt.current.quote !== quote) attempt.current = { key: newIdempotencyKey(), quote };
      const req = {
        configuration: wire,
        nonce,
        paymentMethodToken: token,
        idempotencyKey: attempt.current.key,
        quoteId: p.quoteId,
        deeplinkOnSuccess: query.deeplinkOnSuccess ?? undefined,
        marketingConsent: askMarketing && marketing ? true : undefined,
      };
      let outcome = await submit(req);
      // A lost answer is retried once with the same key: the server answers the first outcome.
      if (!outcome.ok && outcome.retryable) outcome = await submit(req);
      // Being processed elsewhere: wait as Retry-After says and ask again with the same key,
      // up to a bound; then the order may still complete, so the key is kept.
      outcome = await waitWhileProcessing(outcome, () => submit(req), (o) => (!o.ok && o.inProgress ? (o.retryAfterSeconds ?? 0) : undefined), { onWaiting: setProcessing });
      if (!outcome.ok && outcome.inProgress) {
        setSubmitErrors([PROCESSING_TOO_LONG]);
        return;
      }
      // Refused before any charge (400, 401, a changed price): the card's nonce is unspent.
      const unspent = !outcome.ok && (outcome.status === 400 || outcome.status === 401 || outcome.reason === 'QUOTE_CHANGED');
      setKeptCard(payWith === 'card' && unspent ? card : undefined);
      if (!outcome.ok) {
        // The key's attempt ended without an order or a charge: the next click is a new
        // attempt, with a new key and the card tokenised again.
        if (outcome.reason === ATTEMPT_CLOSED) attempt.current = undefined;
        if (outcome.requireLogin) setLoginOpen(LOGIN_REQUIRED);
        // A refused order's fresh preview: the tail allocations to ask about, the promotion's
        // notice, and whether the plan needs proven military eligibility.
        const refused = outcome.reason === 'QUOTE_CHANGED' ? undefined : outcome.preview;
        if (refused) {
          if ((refused.expiringAllocations ?? []).length > 0) setAllocations(refused.expiringAllocations);
          if ((refused.promoInfoRequirements ?? []).length > 0) setPromo(refused.promoInfoRequirements![0]);
          setEligibilityPage((refused.errorCodes ?? []).includes(MILITARY_ELIGIBILITY_REQUIRED) ? eligibilityPath(p.addOns ?? config.addOns) : undefined);
        }
        if (outcome.reason === CURRENCY_NOT_ALLOWED) setCurrencyMessage(outcome.errors[0] || MSG_CURRENCY_NOT_ALLOWED);
        if (outcome.reason === 'QUOTE_CHANGED') {
          // Nothing was charged: the prices moved; show the fresh invoice and ask again.
          attempt.current = undefined;
          void previewQuery.refetch();
        }
        // A card nonce is single use: a declined or refused attempt needs the card again, and
        // the decline is explained next to the card, whose number and CVV the frame cleared.
        if (outcome.status === 402) {
          attempt.current = undefined;
          if (payWith === 'card') setCardErrors([...outcome.errors, CARD_AGAIN]);
        }
        // A refused tick (expired, reused) is cleared for a new one (spec 001); the body
        // changes with the next tick, so the next attempt takes a new key.
        if (outcome.errors.includes(MSG_CAPTCHA_ERROR)) {
          human.current?.reset();
          attempt.current = undefined;
        }
        setSubmitErrors(outcome.errors);
        return;
      }
      const result = outcome.result;
      attempt.current = undefined;
      const inv = result.invoice ?? p.invoice;
      const details = { currency: inv?.currency ?? currency, value: num(inv?.totalInCents) / 100, items: analyticsItems({ invoice: inv }), invoiceId: result.invoiceId, accountId: result.accountId, source: 'buy' };
      try {
        analytics().purchase(details);
        analytics().orderCompleted(details);
        analytics().socialPurchase(details.currency, details.value);
      } catch (e) {
        console.error((e as Error).message);
      }
      const url = successUrl(result, kiosk, { newAccount: !loggedIn && payWith !== 'reader' });
      // Only the server's deeplink: it keeps deeplinkOnSuccess only for the app's own
      // schemes and hosts, so the page never follows one it dropped.
      const deeplink = result.mobileDeeplink;
      if (deeplink) {
        // The app opens first; the success page follows after 3 s.
        navigate(deeplink);
        setTimeout(() => navigate(url), 3000);
      } else {
        navigate(url);
      }
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(0, 'unknown', (e as Error).message);
      setSubmitErrors(err.fieldErrors.length ? err.fieldErrors.map((f) => f.message) : [err.message]);
    } finally {
      setSubmitting(false);
    }
  };

  // A new organization buying several licences signs up in the login modal and goes on.
  const signup = useSignupAtCheckout({
    loggedIn,
    previewLoggedIn: p?.loggedIn === true,
    previewSettled: Boolean(p) && !previewQuery.isFetching,
    submitting,
    errors: submitErrors,
    business: isBusiness,
    organizationName: config.organizationName,
    isEu: p?.euConsentRequired === true,
    onOrganization: (v) => dispatch({ type: 'set', patch: { organizationName: v } }),
    onSignedUp: (email) => {
      dispatch({ type: 'set', patch: { email } });
      setSubmitErrors([]);
      setLoginOpen(undefined);
    },
    goOn: () => void purchase(),
  });
  const onProceedChange = async () => {
    // Only a business subscription becoming individual asks whether the business may downgrade.
    if (config.businessDowngrade) {
      try {
        const r = await unwrap(apiClient().checkout.GET('/buy/api/business/can-downgrade', { params: { query: { accountId: config.accountId || me.accountUuid || '' } } }));
        if (r.canDowngrade === false) {
          setPlanChangeErrors(r.errors ?? []);
          return;
        }
      } catch (e) {
        console.error('business check failed', e);
      }
    }
    setConfirmedChange(p?.quoteHash ?? '');
    setPlanChangeOpen(false);
    void purchase(true);
  };

  // Licence agreement: business or military with more than one licence; EULA for business.
  const needsLicense = (isBusiness || isMilitary) && quantity > 1;
  const eulaMissing = isBusiness && !config.isEulaChecked;
  const licenseMissing = needsLicense && !config.isLicenseAgreementChecked;
  const showGdpr = p?.euConsentRequired === true || query.gdprShow;
  // A failed re-pricing shows its reason in place of the total: the last good total is
  // no longer the price of what is on screen, so it is neither shown nor payable.
  const repriceError = previewQuery.isError && !previewQuery.isFetching ? previewQuery.error.message || CONNECT_ERROR : undefined;
  const payable = Boolean(p?.invoice) && !repriceError;

  // The sections' callbacks, the same functions for the page's life (memoized sections).
  const onEmail = useEvent((v: string) => dispatch({ type: 'set', patch: config.accountId && (!loggedIn || selling) ? { email: v, accountId: '', subscriptionId: '' } : { email: v } }));
  const onOrganization = useEvent((v: string) => dispatch({ type: 'set', patch: { organizationName: v } }));
  const onCurrencyChoice = useEvent((c: CurrencyCode) => void onCurrency(c));
  const onAccountNumber = useEvent((v: string) => dispatch({ type: 'set', patch: { jeppCustomerNo: v } }));
  const collapsePlans = useEvent(() => onExpanded('plans')(false));
  const codes = useStable([...config.discountPromoCode, ...config.giftCertificateCode]);
  const onAddCode = useEvent(async (code: string): Promise<string | undefined> => {
    const c = code.trim();
    if (!c || /^x+$/i.test(c) || c.toUpperCase() === 'PROMO CODE') return undefined;
    if (codes.some((x) => x.toLowerCase() === c.toLowerCase())) return 'Code already used.';
    // Checkout says whether the code applies here and whether it is a gift certificate.
    let check;
    try {
      check = await validatePromo(c, toWire(config, { cartId: '', counter: 0 }));
    } catch (e) {
      return e instanceof Error && e.message ? e.message : 'The code could not be checked; try again.';
    }
    if (check.status !== 'ok') {
      const notice = check.promoInfoRequirements?.[0];
      if (notice) setPromo(notice);
      return check.message || 'This code is not valid.';
    }
    // The preview that follows shows the code's line and any notice it asks for.
    dispatch({ type: 'addCode', code: check.code || c, kind: check.kind === 'gift' ? 'gift' : 'promo' });
    return undefined;
  });
  const onRemoveCode = useEvent((code: string) => dispatch({ type: 'removeCode', code }));
  const onPaymentChange = useEvent((patch: Parameters<PaymentSectionProps['onChange']>[0]) =>
    dispatch({ type: 'set', patch: { ...patch, ...(patch.country !== undefined ? { country: normalizeCountry(patch.country) } : {}) } }),
  );
  const onCardHelp = useCallback(() => setCardHelp(true), []);
  // Enter in the card frame pays too: not past an unconfirmed licence count (the Pay button
  // waits for it as well); the buyer is taken to the question instead.
  const onPay = useEvent(() => {
    if (!quantityUnconfirmed) return void purchase();
    document.querySelector<HTMLInputElement>('input[name="quantityConfirmed"]')?.focus();
  });

  return (
    <div className={cx(s.buy, s.buyWithPaybar)} data-remote="buy" data-kiosk={kiosk || undefined}>
      <nav className={s.buyCrumbs} aria-label="Breadcrumbs">
        <ol>
          <li>
            <a href={href('/pricing')}>{family === 'Bundle' ? 'Business Plans' : family}</a>
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
          {meReady ? <AccountBlock
            loggedIn={loggedIn && !selling}
            seller={selling ? (me.username ?? me.email ?? '') : undefined}
            username={me.username ?? me.email ?? ''}
            email={loggedIn && !selling ? (p?.email ?? me.email ?? '') : config.email}
            organizationName={config.organizationName}
            business={isBusiness}
            emailLocked={p?.emailLocked === true}
            emailErrors={fieldErrors.email ?? NONE}
            orgErrors={fieldErrors.organizationName ?? NONE}
            onEmail={onEmail}
            onOrganization={onOrganization}
            onLogin={onLogin}
            onLogout={onLogout}
            childMessage={childMessage}
          /> : <div className={s.buyAccount} aria-busy="true" />}
          {/* 3. currency: after the e-mail block (spec 000 §2), on one line of its own */}
          <CurrencySelector currencies={catalog.currencies} value={currency} onChange={onCurrencyChoice} />
          {/* 4. renewal box */}
          {p?.isRenewal && !config.businessDowngrade ? (
            <section className={s.buyBox} aria-labelledby="buy-renewal-title" data-testid="renewal-box">
              <h2 id="buy-renewal-title">Renew your subscription</h2>
              <p>
                You are renewing your current subscription. It renews at {formatMoney(num(p.renewalAmountInCents), currency)}/yr
                {p.renewalDate ? ` from ${p.renewalDate}` : ''}. Change plans, regions or add-ons below to update it.
              </p>
              {isBusiness ? (
                <Button
                  variant="secondary"
                  size="small"
                  onClick={() => {
                    setDowngradeDropsUsers(p.regionsDisabled === true || (p.lockedAddOns ?? []).length > 0);
                    dispatch({ type: 'set', patch: { businessDowngrade: true } });
                  }}
                >
                  Switch to an individual plan
                </Button>
              ) : null}
            </section>
          ) : null}
          {downgradeWarning ? (
            <p className={s.buyNotice} role="note" data-testid="downgrade-allocations">
              {DOWNGRADE_ALLOCATIONS}
            </p>
          ) : null}
          {/* 5. legacy replacement */}
          {p?.legacyPlanReplaced ? (
            <p className={s.buyNotice} role="status" data-testid="legacy-notice">
              Your plan {p.replacedPlan ? `(${p.replacedPlan}) ` : ''}is no longer sold; it has been replaced by its current equivalent below.
            </p>
          ) : null}
          {/* 6. plans */}
          <SectionBlock id="plans" title="Plans" note={note} expanded={expanded.includes('plans')} onToggle={shell('plans').onExpandedChange} summary={planSummary}>
            <p className={s.buyHint}>
              {verb} a plan to select it. Each plan includes one region.
            </p>
            {selectionErrors.length > 0 && childMessage ? <p className={s.buyErrorInline}>{childMessage}</p> : null}
            {planFamilies.map((f, i) => (
              <div key={f.id} className={s.buySubblock} data-family={f.id}>
                {planFamilies.length > 1 ? <h3>{f.title}</h3> : null}
                <OptionList
                  name="plan"
                  legend={f.title}
                  type="radio"
                  currency={currency}
                  options={planOptions[i]!}
                  onChange={onPlan}
                  onPointerChoice={collapsePlans}
                />
              </div>
            ))}
          </SectionBlock>
          {/* 7. regions */}
          {regionMode !== 'none' && !query.hjopaBundle ? (
            <ChoiceSection
              id="regions"
              title="Regions"
              type={regionMode === 'radio' ? 'radio' : 'checkbox'}
              intro={p?.regionsDisabled ? 'Your regions follow your allocated licenses.' : `Your plan includes ${regionTitle(regionEntries, includedRegion)}. Add more regions:`}
              options={regionOptions}
              currency={currency}
              compact
              summary={regionSummary}
              onChange={onRegion}
              errors={regionErrors}
              {...shell('regions')}
            >
              {coverageMap}
            </ChoiceSection>
          ) : null}
          {/* 8. add-ons */}
          {!query.hjopaBundle ? (
            <ChoiceSection id="addOns" title="Add-ons" options={addOnOptions} currency={currency} onChange={toggle} {...shell('addOns')} />
          ) : null}
          {/* 9–14: the optional sections, two collapsed headers to a line on desktop */}
          <div className={s.buyExtras}>
          {/* 9. chart-provider IFR */}
          {p?.chartIfrVisible ? (
            <ChartsSection
              coverages={coverages}
              addOns={addOns}
              currency={currency}
              disabled={p.chartCoveragesDisabled === true}
              military={isMilitary}
              accountNumber={config.jeppCustomerNo}
              onAccountNumber={onAccountNumber}
              onChoose={onChart}
              {...shell('jeppesen')}
            >
              {avionics}
            </ChartsSection>
          ) : null}
          {/* 10. military supplements */}
          {p?.militarySupplementsVisible && milSupp.length > 0 ? (
            <ChoiceSection id="militarySupplements" title="Jeppesen Military Supplements" options={milSupp} currency={currency} onChange={toggle} {...shell('militarySupplements')} />
          ) : null}
          {/* 11–12. runway analysis */}
          {!isMilitary && !query.hjopaBundle ? (
            <>
              <ChoiceSection id="jetRunway" title="Jet Runway Analysis" intro="Runway analysis by aircraft maker, for the aircraft of the model you buy." options={jetRunway} currency={currency} onChange={toggle} {...shell('jetRunway')} />
              <ChoiceSection id="turbopropRunway" title="Turboprop Runway Analysis" options={tpRunway} currency={currency} onChange={toggle} {...shell('turbopropRunway')} />
            </>
          ) : null}
          {/* 13. VFR packages */}
          {!isMilitary && !query.hjopaBundle ? <ChoiceSection id="vfr" title="VFR Packages" options={vfr} currency={currency} onChange={toggle} {...shell('vfr')} /> : null}
          {/* 14. jet-maker runway analysis (bundle) */}
          {query.hjopaBundle ? (
            <ChoiceSection
              id="jetMaker"
              title="HondaJet Runway Analysis"
              type="radio"
              options={jetMaker}
              currency={currency}
              onChange={onJetMaker}
              {...shell('jetMaker')}
            />
          ) : null}
          </div>
          {/* 15. licence quantity */}
          {isBusiness || isMilitary ? (
            <QuantitySection
              value={config.quantity}
              priced={quantity}
              min={isBusiness ? 2 : 1}
              max={100}
              salesContact={salesEmail}
              onChange={(v) => dispatch({ type: 'set', patch: { quantity: v } })}
              confirm={startQuantity ? { from: startQuantity.n, renewal: startQuantity.renewal, checked: !quantityUnconfirmed, onChange: onQuantityConfirmed } : undefined}
              {...shell('quantity')}
              expanded
            />
          ) : null}
          {needsLicense || isBusiness ? (
            <section className={s.buyBox} aria-labelledby="buy-agreement-title">
              <h2 id="buy-agreement-title">Agreements</h2>
              {needsLicense ? (
                <CheckboxField
                  name="licenseAgreement"
                  checked={config.isLicenseAgreementChecked}
                  errors={attempted && licenseMissing ? ['please confirm'] : []}
                  onChange={(e) => dispatch({ type: 'set', patch: { isLicenseAgreementChecked: e.target.checked } })}
                  label={
                    <>
                      I have read and accept the <a href={href('/license-agreement')}>license agreement</a> for {quantity} licenses.
                    </>
                  }
                />
              ) : null}
              {isBusiness ? (
                <CheckboxField
                  name="eula"
                  checked={config.isEulaChecked}
                  errors={attempted && eulaMissing ? ['Please agree to our terms of use.'] : []}
                  onChange={(e) => dispatch({ type: 'set', patch: { isEulaChecked: e.target.checked } })}
                  label={
                    <>
                      I agree to the <a href={href('/eula')}>terms of use (EULA)</a>.
                    </>
                  }
                />
              ) : null}
            </section>
          ) : null}
          <PromoBox
            codes={codes}
            onAdd={onAddCode}
            onRemove={onRemoveCode}
            errors={codeErrors}
            // ?code= (spec 001 §2; the gift e-mail's redeem link): applied as if typed, once
            // the first price is in, so the check sees the cart the buyer will pay for.
            prefill={p ? (query.code ?? undefined) : undefined}
          />
          {paymentShown ? <PaymentSection
            payWith={payWith}
            onPayWith={setPayWith}
            stored={storedMethod.data}
            readers={readers.data ?? NONE}
            reader={reader}
            onReader={setReader}
            hosted={hosted}
            keptCard={keptCard}
            onOtherCard={otherCard}
            cardholderName={config.cardholderName}
            zipcode={config.zipcode}
            country={config.country}
            businessId={config.businessIdentificationNo}
            vatIdCheck={p?.vatIdCheck}
            showGdpr={showGdpr}
            gdpr={config.isGdprCompliant}
            showMarketing={askMarketing}
            marketing={marketing}
            onMarketing={setMarketing}
            fieldErrors={fieldErrors}
            onChange={onPaymentChange}
            onCardHelp={onCardHelp}
            onPay={onPay}
          /> : <div className={s.buyPaymentPending} />}
        </div>
        <InvoicePanel preview={p} currency={currency} updating={previewQuery.isFetching} error={repriceError}>
          <HumanVerification handle={human} />
          <ErrorSummary errors={shownErrors} />
          {processing ? (
            <p role="status" data-testid="still-processing">
              {STILL_PROCESSING}
            </p>
          ) : null}
          {eligibilityPage ? (
            <p>
              <a href={eligibilityPage} data-testid="eligibility-link">
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
            action={payable ? `Pay ${formatMoney(num(p!.invoice!.totalInCents), (p!.invoice!.currency as CurrencyCode) ?? currency)}` : 'Pay'}
            renewal={
              payable && p?.renewalDate && num(p.renewalAmountInCents) > 0
                ? { amount: formatMoney(num(p.renewalAmountInCents), (p.invoice?.currency as CurrencyCode) ?? currency), period: planEntry?.durationMonths === 3 ? 'three months' : 'year', date: renewalDateText(p.renewalDate) }
                : undefined
            }
          />
          <Button size="large" className={s.buyPurchase} disabled={submitting || !payable || previewQuery.isFetching || previewPending || licenseMissing || quantityUnconfirmed} onClick={() => void purchase()} aria-busy={submitting || undefined}>
            {submitting ? 'Processing…' : `Pay${payable ? ` ${formatMoney(num(p!.invoice!.totalInCents), (p!.invoice!.currency as CurrencyCode) ?? currency)}` : ''}`}
          </Button>
        </InvoicePanel>
        <PayBar total={payable ? formatMoney(num(p!.invoice!.totalInCents), (p!.invoice!.currency as CurrencyCode) ?? currency) : undefined} />
      </div>
      <LoginModal open={loginOpen !== undefined} heading={loginOpen ?? LOGIN_REQUIRED} onClose={() => setLoginOpen(undefined)} onLogin={onLogin} initialEmail={config.email} create={signup} />
      <CurrencyNotAllowedModal message={isMilitary ? undefined : currencyMessage} onClose={() => setCurrencyMessage(undefined)} />
      <PlanChangeModal change={p?.planChange} warning={downgradeWarning ? DOWNGRADE_ALLOCATIONS : undefined} open={planChangeOpen} errors={planChangeErrors} onProceed={() => void onProceedChange()} onKeepEditing={() => setPlanChangeOpen(false)} />
      <ExpiredAllocationsModal
        allocations={allocations}
        onChoose={(keep) => {
          dispatch({ type: 'set', patch: allocationsChoice(allocations ?? [], keep, config.quantity) });
          setAllocations(undefined);
          setSubmitErrors([]);
        }}
      />
      <PromoNoticeModal
        requirement={promo}
        onClose={() => {
          if (promo?.code) dispatch({ type: 'viewed', codes: [promo.code] });
          setPromo(undefined);
        }}
      />
      <CreditCardModal open={cardHelp} onClose={() => setCardHelp(false)} />
    </div>
  );
}

function regionTitle(entries: readonly CatalogEntry[], code: string | undefined): string {
  const t = entries.find((e) => e.addOnCode === code)?.title ?? '';
  const name = t.replace(/\s*\(included\)\s*$/i, '').trim();
  return name === '' ? 'one region' : name;
}

function analyticsItems(p: { invoice?: Preview['invoice'] }) {
  return visibleLines(p.invoice?.invoiceItems).map((l) => ({
    addOnCode: l.addOnCode || l.type || '',
    description: l.description ?? '',
    amount: num(l.amountInCents) / 100,
    unitAmount: num(l.unitAmountInCents) / 100,
    quantity: num(l.quantity, 1),
    planType: l.planType,
  }));
}

/**
 * Phones: the total and a jump to the card form, fixed at the bottom while the order
 * summary (with the one Pay button) is off screen. It is a link, not a second Pay
 * button: paying stays one button next to the summary.
 */
function PayBar({ total }: { total: string | undefined }) {
  const [summaryInView, setSummaryInView] = useState(false);
  useEffect(() => {
    const el = document.getElementById('buy-invoice');
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setSummaryInView(entries.some((e) => e.isIntersecting)));
    io.observe(el);
    return () => io.disconnect();
  }, []);
  return (
    <div className={s.buyPaybar} hidden={summaryInView} data-testid="paybar">
      <span className={s.buyPaybarTotal}>
        Total <span data-testid="paybar-total">{total ?? '…'}</span>
      </span>
      <Button
        size="medium"
        onClick={() => {
          const pay = document.getElementById('buy-payment');
          pay?.scrollIntoView?.({ block: 'start' });
          pay?.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
        }}
      >
        Go to payment
      </Button>
    </div>
  );
}

const PromoBox = memo(function PromoBox({ codes, onAdd, onRemove, errors, prefill }: { codes: string[]; onAdd: (c: string) => Promise<string | undefined>; onRemove: (c: string) => void; errors: string[]; prefill?: string }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);
  const apply = (code: string) => {
    setChecking(true);
    void onAdd(code)
      .then((err) => {
        setError(err);
        setValue(err ? code : '');
      })
      .finally(() => setChecking(false));
  };
  const prefilled = useRef(false);
  useEffect(() => {
    if (!prefill || prefilled.current) return;
    prefilled.current = true;
    apply(prefill);
    // Once per page: the address's code, not a later edit.
  }, [prefill]);
  return (
    <section className={cx(s.buyBox, s.buyPromoBox)} aria-labelledby="buy-promo-title">
      <h2 id="buy-promo-title">Promo or gift code</h2>
      <form
        className={s.buyPromo}
        onSubmit={(e) => {
          e.preventDefault();
          if (checking) return;
          apply(value);
        }}
      >
        <TextField className={s.buyPromoField} label="Promo or gift certificate code" name="code" value={value} errors={error ? [error] : errors} onChange={(e) => setValue(e.target.value)} />
        <Button type="submit" variant="secondary" disabled={checking}>
          Apply
        </Button>
      </form>
      {codes.length > 0 ? (
        <ul className={s.buyCodes}>
          {codes.map((c) => (
            <li key={c}>
              <span data-testid="applied-code">{c}</span>{' '}
              <Button variant="link" size="small" onClick={() => onRemove(c)} aria-label={`Remove code ${c}`}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
});

export { priceIn };
