import { useMemo } from 'react';
import { ErrorState, LoadingState } from '@hangar/ui';
import { CURRENCY_SYMBOLS, VAT_NOTE, formatPrice, parseCurrency, resolveCurrency, showsVatNote, type CurrencyCode } from '@hangar/money';
import { GROUPS, INDIVIDUAL_PLAN_CODES, featureStatus, priceIn, useResource, visibleEntries, type Catalog, type CatalogEntry } from '@hangar/api-client';
import { apiClient } from './api';
import { Link } from './Link';

export const CONNECT_ERROR = 'There was a problem connecting.';

export interface PricingPageProps {
  search?: string;
  navigate?: (to: string) => void;
}

export function PricingPage({ search = typeof window === 'undefined' ? '' : window.location.search, navigate }: PricingPageProps) {
  const requested = useMemo(() => parseCurrency(new URLSearchParams(search).get('currency')), [search]);
  const catalog = useResource((signal) => apiClient().catalog.availablePlans({}, signal), 'catalog');
  return (
    <div className="mk" data-remote="marketing">
      <h1>Compare plans</h1>
      {catalog.status === 'loading' ? (
        <LoadingState label="Loading plans…" />
      ) : catalog.status === 'error' ? (
        <ErrorState message={CONNECT_ERROR} detail="The plan catalogue did not answer. Please try again." onRetry={catalog.retry} />
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

function Comparison({ catalog, currency, navigate }: { catalog: Catalog; currency: CurrencyCode; navigate?: (to: string) => void }) {
  const plans = individualPlans(catalog, currency);
  const features = visibleEntries(catalog, GROUPS.FEATURES, currency);
  const extraRegion = visibleEntries(catalog, GROUPS.REGIONS, currency)
    .map((r) => priceIn(r, currency))
    .filter((p) => p && !p.included)
    .map((p) => p!.amountInCents)
    .sort((a, b) => a - b)[0];

  if (plans.length === 0) return <p>No plans are sold in {currency}.</p>;
  const cell = (f: CatalogEntry, plan: string) => {
    const status = featureStatus(f, plan, plans);
    if (status === 'included') return <span className="mk-yes">Included</span>;
    if (status === 'unavailable') return <span className="mk-no">Not available</span>;
    const fp = priceIn(f, currency);
    return <span className="mk-no">Add-on{fp && !fp.included ? `, ${formatPrice(fp.amountInCents, currency, 'year')}` : ''}</span>;
  };

  return (
    <>
      <p className="mk-note">
        Prices per year in {currency} ({CURRENCY_SYMBOLS[currency]}).{showsVatNote(currency) ? ` ${VAT_NOTE}.` : ''}
      </p>
      <div className="mk-table-wrap">
        <table className="mk-table" data-testid="comparison">
          <caption className="h-visually-hidden">Individual plans compared</caption>
          <thead>
            <tr>
              <th scope="col">Plan</th>
              {plans.map((p) => {
                const price = priceIn(p, currency);
                return (
                  <th scope="col" key={p.addOnCode} data-plan={p.addOnCode}>
                    {p.title}
                    <span className="mk-plan-price">{price ? formatPrice(price.amountInCents, currency, 'year') : ''}</span>
                    <Link className="mk-buy" href={`/buy?addOns=${p.addOnCode}&currency=${currency}`} navigate={navigate} aria-label={`Buy ${p.title}`}>
                      Buy
                    </Link>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">What you get</th>
              {plans.map((p) => (
                <td key={p.addOnCode}>{p.description ?? ''}</td>
              ))}
            </tr>
            <tr>
              <th scope="row">Regions</th>
              {plans.map((p) => (
                <td key={p.addOnCode}>
                  1 included{extraRegion !== undefined ? `; more from ${formatPrice(extraRegion, currency, 'year')} each` : ''}
                </td>
              ))}
            </tr>
            <tr>
              <th scope="row">Devices per licence</th>
              {plans.map((p) => (
                <td key={p.addOnCode}>2 iPads and 1 iPhone, or 1 iPad and 2 iPhones</td>
              ))}
            </tr>
            {features.map((f) => (
              <tr key={f.addOnCode}>
                <th scope="row">{f.title}</th>
                {plans.map((p) => (
                  <td key={p.addOnCode}>{cell(f, p.addOnCode)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
