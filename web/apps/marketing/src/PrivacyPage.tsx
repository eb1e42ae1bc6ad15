import { SiteHeader } from './SiteHeader';
import s from './marketing.module.css';

/** /privacy-policy and /about/privacy/: the cookie notice's privacy link. */
export function PrivacyPage({ navigate }: { navigate?: (to: string) => void }) {
  return (
    <div className={s.mk} data-remote="marketing">
      <SiteHeader navigate={navigate} />
      <h1>Privacy policy</h1>
      <h2>Cookies</h2>
      <p>
        The store sets three cookies for 30 days: <code>show_eu_cookie_directive</code> (whether the cookie notice is shown),{' '}
        <code>euro_redirect</code> (whether you are in the European Union) and <code>ff_currency_choice</code> (your default currency). A session
        cookie keeps you logged in, and <code>XSRF-TOKEN</code> protects forms.
      </p>
      <h2>Location</h2>
      <p>
        Your country is derived from your IP address on our own servers, only to decide the cookie notice and your default currency. It is not
        stored. This site or product includes IP2Location LITE data available from{' '}
        <a href="https://lite.ip2location.com">https://lite.ip2location.com</a>.
      </p>
    </div>
  );
}
