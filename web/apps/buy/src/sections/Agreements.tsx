import { CheckboxField } from '@hangar/ui';
import s from '../buy.module.css';

export interface AgreementsProps {
  /** The licence agreement for this many licences (business or military, more than one). */
  license: boolean;
  /** The EULA (business). */
  eula: boolean;
  quantity: number;
  licenseChecked: boolean;
  eulaChecked: boolean;
  /** Pay was clicked: a missing tick is an error. */
  attempted: boolean;
  onLicense: (checked: boolean) => void;
  onEula: (checked: boolean) => void;
  href: (h: string) => string;
}

/** The licence agreement and the EULA a business or military cart accepts. */
export function Agreements({ license, eula, quantity, licenseChecked, eulaChecked, attempted, onLicense, onEula, href }: AgreementsProps) {
  return (
    <section className={s.buyBox} aria-labelledby="buy-agreement-title">
      <h2 id="buy-agreement-title">Agreements</h2>
      {license ? (
        <CheckboxField
          name="licenseAgreement"
          checked={licenseChecked}
          errors={attempted && !licenseChecked ? ['please confirm'] : []}
          onChange={(e) => onLicense(e.target.checked)}
          label={
            <>
              I have read and accept the <a href={href('/license-agreement')}>license agreement</a> for {quantity} licenses.
            </>
          }
        />
      ) : null}
      {eula ? (
        <CheckboxField
          name="eula"
          checked={eulaChecked}
          errors={attempted && !eulaChecked ? ['Please agree to our terms of use.'] : []}
          onChange={(e) => onEula(e.target.checked)}
          label={
            <>
              I agree to the <a href={href('/eula')}>terms of use (EULA)</a>.
            </>
          }
        />
      ) : null}
    </section>
  );
}
