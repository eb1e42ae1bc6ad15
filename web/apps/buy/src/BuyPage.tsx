import { useDeferredValue, useMemo } from 'react';
import { ErrorState, LoadingState } from '@hangar/ui';
import { priceIn, type WireMe } from '@hangar/api-client';
import { parseBuyLocation, type BuyLocation } from './query';
import { useCatalog, useMe, useNotice } from './hooks';
import { Configurator } from './Configurator';
import { CONNECT_ERROR } from './messages';
import s from './buy.module.css';

export { CARD_AGAIN, CONNECT_ERROR, eligibilityPath } from './messages';
export { CORRECT_FOLLOWING } from '@hangar/ui';

export interface BuyPageProps {
  /** The address; defaults to the page's. */
  location?: BuyLocation;
  /** Full navigation (success page, reloads); injectable for tests. */
  navigate?: (url: string) => void;
  reload?: () => void;
}

const browserLocation = (): BuyLocation =>
  typeof window === 'undefined' ? { pathname: '/buy', search: '', hash: '' } : { pathname: window.location.pathname, search: window.location.search, hash: window.location.hash };

const GUEST: WireMe = { loggedIn: false };

/** /buy: the catalogue's loading and failure states, then the configurator. */
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

export { priceIn };
