import { cx } from './cx';
import ui from './ui.module.css';
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';

/** A string is blank if missing or empty after trimming. */
export function isBlank(value: string | null | undefined): boolean {
  return value == null || value.trim() === '';
}

function FieldErrors({ id, errors }: { id: string; errors: readonly string[] }) {
  if (errors.length === 0) return null;
  return (
    <ul className={ui.hFieldErrors} id={id}>
      {errors.map((e) => (
        <li key={e}>{e}</li>
      ))}
    </ul>
  );
}

/** Fields accept error lists: a non-empty list marks the field as errored. */
interface FieldBase {
  label: ReactNode;
  errors?: readonly string[];
}

export type TextFieldProps = FieldBase & InputHTMLAttributes<HTMLInputElement>;

export function TextField({ label, errors = [], id, className, ...input }: TextFieldProps) {
  const auto = useId();
  const inputId = id ?? auto;
  const errId = `${inputId}-errors`;
  const invalid = errors.length > 0;
  return (
    <div className={cx(ui.hField, invalid && ui.hFieldError, className)}>
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-invalid={invalid || undefined} aria-describedby={invalid ? errId : undefined} {...input} />
      <FieldErrors id={errId} errors={errors} />
    </div>
  );
}

export interface SelectOption {
  value: string;
  label: string;
}

export type SelectFieldProps = FieldBase & SelectHTMLAttributes<HTMLSelectElement> & { options: readonly SelectOption[] };

export function SelectField({ label, errors = [], id, options, className, ...select }: SelectFieldProps) {
  const auto = useId();
  const selectId = id ?? auto;
  const errId = `${selectId}-errors`;
  const invalid = errors.length > 0;
  return (
    <div className={cx(ui.hField, invalid && ui.hFieldError, className)}>
      <label htmlFor={selectId}>{label}</label>
      <select id={selectId} aria-invalid={invalid || undefined} aria-describedby={invalid ? errId : undefined} {...select}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldErrors id={errId} errors={errors} />
    </div>
  );
}

export type CheckboxFieldProps = FieldBase & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { type?: 'checkbox' | 'radio' };

/** A checkbox or radio with its label on the right. */
export function CheckboxField({ label, errors = [], id, type = 'checkbox', className, ...input }: CheckboxFieldProps) {
  const auto = useId();
  const inputId = id ?? auto;
  const errId = `${inputId}-errors`;
  const invalid = errors.length > 0;
  return (
    <div className={cx(ui.hCheck, invalid && ui.hFieldError, className)}>
      <input id={inputId} type={type} aria-invalid={invalid || undefined} aria-describedby={invalid ? errId : undefined} {...input} />
      <label htmlFor={inputId}>{label}</label>
      <FieldErrors id={errId} errors={errors} />
    </div>
  );
}
