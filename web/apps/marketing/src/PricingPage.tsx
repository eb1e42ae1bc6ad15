import { useCallback, useMemo, useState } from 'react';
import { Dialog, ErrorState, LoadingState, ui } from '@hangar/ui';
import { CURRENCY_SYMBOLS, VAT_NOTE, formatPrice, parseCurrency, resolveCurrency, showsVatNote, type CurrencyCode } from '@hangar/money';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { GROUPS, INDIVIDUAL_PLAN_CODES, featureStatus, priceIn, visibleEntries, type ApiError, type Catalog, type CatalogEntry } from '@hangar/api-client';
import { apiClient } from './api';
import { Link } from './Link';
import { SiteHeader } from './SiteHeader';
import s from './marketing.module.css';

export const CONNECT_ERROR = 'There was a problem connecting.';

export interface PricingPageProps {
  search?: string;
  navigate?: (to: string) => void;
}

/** /pricing, with the TanStack Query client its catalogue lives in. */
export function PricingPage(props: PricingPageProps) {
  const [queries] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  return (
    <QueryClientProvider client={queries}>
      <Pricing {...props} />
    </QueryClientProvider>
  );
}

function Pricing({ search = typeof window === 'undefined' ? '' : window.location.search, navigate }: PricingPageProps) {
  const requested = useMemo(() => parseCurrency(new URLSearchParams(search).get('currency')), [search]);
  const catalog = useQuery<Catalog, ApiError>({ queryKey: ['catalog'], queryFn: ({ signal }) => apiClient().catalog.availablePlans({}, signal) });
  return (
    <div className={s.mk} data-remote="marketing">
      <SiteHeader navigate={navigate} />
      <h1>Compare plans</h1>
      {catalog.isPending ? (
        <LoadingState label="Loading plans…" />
      ) : catalog.isError ? (
        <ErrorState message={CONNECT_ERROR} detail="The plan catalogue did not answer. Please try again." onRetry={() => void catalog.refetch()} />
      ) : (
        <Comparison catalog={catalog.data} currency={resolveCurrency(requested, catalog.data.currencies.map((c) => c.code))} navigate={navigate} />
      )}
    </div>
  );
}

/** The three individual plans, in catalogue order. */
export function individualPlans(catalog: Catalog, currency: CurrencyCode): CatalogEntry[] {
  const codes: readonly string[] = INDIVIDUAL_PLAN_CODES;
  return visibleEntries(catalog, GROUPS.INDIVIDUAL, currency).filter((e) => codes.includes(e.addOnCode));
}

/**
 * The info modal of the comparison (spec 001 §2): one feature at a time, stepped with the
 * Previous and Next buttons or the arrow keys (wrapping around); Escape closes it.
 */
export interface InfoTopic {
  title: string;
  text: string;
}

export function FeatureInfo({ topics, index, onIndex, onClose }: { topics: InfoTopic[]; index: number | null; onIndex: (i: number) => void; onClose: () => void }) {
  const n = topics.length;
  const step = useCallback((d: number) => index !== null && onIndex((index + d + n) % n), [index, n, onIndex]);
  const onKeyDown = useCallback(
    (e: { key: string; preventDefault: () => void }) => {
      if (e.key === 'ArrowRight') {
        e.preventDefault();
        step(1);
      } else if (e.key === 'ArrowLeft') {
        e.preventDefault();
        step(-1);
      }
    },
    [step],
  );
  const f = index === null ? undefined : topics[index];
  return (
    <Dialog
      open={!!f}
      title={f?.title ?? ''}
      onClose={onClose}
      onKeyDown={onKeyDown}
      footer={
        <div className={s.mkInfoNav}>
          <button type="button" onClick={() => step(-1)}>
            Previous
          </button>
          <span aria-live="polite">
            {(index ?? 0) + 1} of {n}
          </span>
          <button type="button" onClick={() => step(1)}>
            Next
          </button>
        </div>
      }
    >
      <p data-testid="feature-info-text">{f?.text}</p>
    </Dialog>
  );
}

function Comparison({ catalog, currency, navigate }: { catalog: Catalog; currency: CurrencyCode; navigate?: (to: string) => void }) {
  const plans = individualPlans(catalog, currency);
  const features = visibleEntries(catalog, GROUPS.FEATURES, currency);
  const [info, setInfo] = useState<number | null>(null);
  const closeInfo = useCallback(() => setInfo(null), []);
  // The info icons of every row, in table order; the modal steps through them.
  const topics: InfoTopic[] = [
    { title: 'What you get', text: 'What each plan is for, in a sentence.' },
    { title: 'Regions', text: 'Every plan includes one region of charts and data; more regions can be added to any plan for a yearly price.' },
    {
      title: 'Devices per licence',
      text: 'One licence runs on up to three devices of one pilot: two iPads and one iPhone, or one iPad and two iPhones.',
    },
    ...features.map((f) => ({ title: f.title, text: f.description || `${f.title}: included or available as an add-on as the table shows.` })),
  ];
  const infoButton = (i: number) => (
    <button type="button" className={s.mkInfo} aria-label={`About ${topics[i]!.title}`} onClick={() => setInfo(i)}>
      i
    </button>
  );
  const extraRegion = visibleEntries(catalog, GROUPS.REGIONS, currency)
    .map((r) => priceIn(r, currency))
    .filter((p) => p && !p.included)
    .map((p) => p!.amountInCents)
    .sort((a, b) => a - b)[0];

  if (plans.length === 0) return <p>No plans are sold in {currency}.</p>;
  const cell = (f: CatalogEntry, plan: string) => {
    const status = featureStatus(f, plan, plans);
    if (status === 'included') return <span className={s.mkYes}>Included</span>;
    if (status === 'unavailable') return <span className={s.mkNo}>Not available</span>;
    const fp = priceIn(f, currency);
    return <span className={s.mkNo}>Add-on{fp && !fp.included ? `, ${formatPrice(fp.amountInCents, currency, 'year')}` : ''}</span>;
  };

  return (
    <>
      <p className={s.mkNote}>
        Prices per year in {currency} ({CURRENCY_SYMBOLS[currency]}).{showsVatNote(currency) ? ` ${VAT_NOTE}.` : ''}
      </p>
      <div className={s.mkTableWrap}>
        <table className={s.mkTable} data-testid="comparison">
          <caption className={ui.hVisuallyHidden}>Individual plans compared</caption>
          <thead>
            <tr>
              <th scope="col">Plan</th>
              {plans.map((p) => {
                const price = priceIn(p, currency);
                return (
                  <th scope="col" key={p.addOnCode} data-plan={p.addOnCode}>
                    {p.title}
                    <span className={s.mkPlanPrice}>{price ? formatPrice(price.amountInCents, currency, 'year') : ''}</span>
                    <Link className={s.mkBuy} href={`/buy?addOns=${p.addOnCode}&currency=${currency}`} navigate={navigate} aria-label={`Buy ${p.title}`}>
                      Buy
                    </Link>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">What you get {infoButton(0)}</th>
              {plans.map((p) => (
                <td key={p.addOnCode}>{p.description ?? ''}</td>
              ))}
            </tr>
            <tr>
              <th scope="row">Regions {infoButton(1)}</th>
              {plans.map((p) => (
                <td key={p.addOnCode}>
                  1 included{extraRegion !== undefined ? `; more from ${formatPrice(extraRegion, currency, 'year')} each` : ''}
                </td>
              ))}
            </tr>
            <tr>
              <th scope="row">Devices per licence {infoButton(2)}</th>
              {plans.map((p) => (
                <td key={p.addOnCode}>2 iPads and 1 iPhone, or 1 iPad and 2 iPhones</td>
              ))}
            </tr>
            {features.map((f, i) => (
              <tr key={f.addOnCode}>
                <th scope="row">
                  {f.title} {infoButton(3 + i)}
                </th>
                {plans.map((p) => (
                  <td key={p.addOnCode}>{cell(f, p.addOnCode)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <FeatureInfo topics={topics} index={info} onIndex={setInfo} onClose={closeInfo} />
    </>
  );
}
