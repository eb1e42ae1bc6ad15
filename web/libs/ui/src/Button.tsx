import type { ButtonHTMLAttributes } from 'react';
import { cx } from './cx';
import ui from './ui.module.css';

/** small 24 px, medium 32 px, large 40 px (spec 001 §9). */
export type ButtonSize = 'small' | 'medium' | 'large';
export type ButtonVariant = 'primary' | 'secondary' | 'link';

export const BUTTON_HEIGHTS: Readonly<Record<ButtonSize, number>> = { small: 24, medium: 32, large: 40 };

const SIZE_CLASS: Record<ButtonSize, string | undefined> = { small: ui.hBtnSmall, medium: ui.hBtnMedium, large: ui.hBtnLarge };
const VARIANT_CLASS: Record<ButtonVariant, string | undefined> = { primary: undefined, secondary: ui.hBtnSecondary, link: ui.hBtnLink };

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  size?: ButtonSize;
  variant?: ButtonVariant;
}

export function Button({ size = 'medium', variant = 'primary', className, type = 'button', ...rest }: ButtonProps) {
  return <button type={type} className={cx(ui.hBtn, SIZE_CLASS[size], VARIANT_CLASS[variant], className)} data-size={size} {...rest} />;
}
