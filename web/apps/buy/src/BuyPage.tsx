import { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { ErrorState, LoadingState } from '@hangar/ui';
import { VAT_NOTE, resolveCurrency, showsVatNote, type CurrencyCode } from '@hangar/money';
import { featureStatus, useResource, type Catalog } from '@hangar/api-client';
import { apiClient } from './api';
import { parseBuyQuery, withCurrency, type BuyQuery } from './query';
import { initialConfiguration, offerFor, reduce, type Action, type Configuration } from './configuration';
import { CurrencySelector } from './sections/CurrencySelector';
import { PlansSection } from './sections/PlansSection';
import { ChoiceSection } from './sections/ChoiceSection';
import { ensureBuyStyles } from './styles';

ensureBuyStyles();

/** Spec 000 §8: the available-plans failure message. */
export const CONNECT_ERROR = 'There was a problem connecting.';
/** Sections expanded by default (spec 000 §2). */
const DEFAULT_EXPANDED = ['plans', 'regions', 'addOns'];

export interface BuyPageProps {
  /** The query string; defaults to the page's. */
  search?: string;
  /** Reloads the page with another currency (spec 001 §2); injectable for tests. */
  changeCurrency?: (currency: CurrencyCode) => void;
}

function reloadWithCurrency(currency: CurrencyCode): void {
  window.location.assign(withCurrency(window.location.href, currency));
}

export function BuyPage({ search = typeof window === 'undefined' ? '' : window.location.search, changeCurrency = reloadWithCurrency }: BuyPageProps) {
  const query = useMemo(() => parseBuyQuery(search), [search]);
  // The whole catalogue (all currencies): one cacheable URL, and the
  // supported-currency list decides the fallback.
  const catalog = useResource((signal) => apiClient().catalog.availablePlans({}, signal), 'catalog');

  return (
    <div className="buy" data-remote="buy">
      <nav className="buy-crumbs" aria-label="Breadcrumbs">
        <ol>
          <li>
            <a href="/pricing">Individual Plans</a>
          </li>
          <li aria-current="page">Your Plan</li>
        </ol>
      </nav>
      {catalog.status === 'loading' ? (
        <>
          <h1>Your Plan</h1>
          <LoadingState label="Loading plans…" />
        </>
      ) : catalog.status === 'error' ? (
        <>
          <h1>Your Plan</h1>
          <ErrorState
            message={CONNECT_ERROR}
            detail={catalog.error.retryable ? 'The plan catalogue did not answer. Please try again.' : catalog.error.message}
            onRetry={catalog.retry}
          />
        </>
      ) : (
        <Configurator catalog={catalog.data} query={query} changeCurrency={changeCurrency} />
      )}
    </div>
  );
}

/** 'United States (included)' -> 'United States'; no title -> 'one region'. */
export function includedRegionName(title: string | undefined): string {
  const name = (title ?? '').replace(/\s*\(included\)\s*$/i, '').trim();
  return name === '' || name.startsWith('included_') ? 'one region' : name;
}

interface ConfiguratorProps {
  catalog: Catalog;
  query: BuyQuery;
  changeCurrency: (currency: CurrencyCode) => void;
}

function Configurator({ catalog, query, changeCurrency }: ConfiguratorProps) {
  const currency = resolveCurrency(query.currency, catalog.currencies.map((c) => c.code));
  const [config, dispatch] = useReducer(
    (s: Configuration, a: Action) => reduce(s, a, catalog),
    undefined,
    () => initialConfiguration(catalog, currency, query.addOns),
  );
  const offer = useMemo(() => offerFor(catalog, currency, config.includedRegion), [catalog, currency, config.includedRegion]);
  const [expanded, setExpanded] = useState<string[]>(() => [...new Set([...DEFAULT_EXPANDED, ...query.sections])]);
  const note = showsVatNote(currency) ? VAT_NOTE : undefined;
  const planTitle = (code: string) => offer.plans.find((p) => p.addOnCode === code)?.title ?? code;

  // The first section of the sections query is scrolled into view once.
  const scrolled = useRef(false);
  useEffect(() => {
    const first = query.sections[0];
    if (scrolled.current || !first) return;
    scrolled.current = true;
    document.getElementById(`section-${first}`)?.scrollIntoView?.({ block: 'start' });
  }, [query.sections]);

  const sectionProps = (id: string) => ({
    expanded: expanded.includes(id),
    onExpandedChange: (open: boolean) => setExpanded((xs) => (open ? [...xs, id] : xs.filter((x) => x !== id))),
  });

  return (
    <>
      <div className="buy-head">
        <h1>Your Plan</h1>
        <CurrencySelector currencies={catalog.currencies} value={currency} onChange={(c) => c !== currency && changeCurrency(c)} />
      </div>
      <PlansSection
        plans={offer.plans}
        currency={currency}
        selected={config.plan}
        onSelect={(plan) => dispatch({ type: 'selectPlan', plan })}
        note={note}
        expanded={expanded.includes('plans')}
        onToggle={sectionProps('plans').onExpandedChange}
      />
      <ChoiceSection
        id="regions"
        title="Regions"
        intro={`Your plan includes ${includedRegionName(offer.includedRegion?.title)}. Add more regions:`}
        entries={offer.regions}
        currency={currency}
        selected={config.regions}
        onToggle={(code) => dispatch({ type: 'toggleRegion', code })}
        note={note}
        {...sectionProps('regions')}
      />
      <ChoiceSection
        id="addOns"
        title="Add-ons"
        entries={offer.addOns}
        currency={currency}
        selected={config.addOns}
        onToggle={(code) => dispatch({ type: 'toggleAddOn', code })}
        locked={(e) => {
          const status = featureStatus(e, config.plan, offer.plans);
          if (status === 'addon' || !config.plan) return undefined;
          return status === 'included'
            ? { included: true, note: `Included with ${planTitle(config.plan)}` }
            : { included: false, note: `Not available with ${planTitle(config.plan)}` };
        }}
        note={note}
        {...sectionProps('addOns')}
      />
    </>
  );
}
