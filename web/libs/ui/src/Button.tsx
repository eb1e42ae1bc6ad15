import type { ButtonHTMLAttributes } from 'react';

/** small 24 px, medium 32 px, large 40 px (spec 001 §9). */
export type ButtonSize = 'small' | 'medium' | 'large';
export type ButtonVariant = 'primary' | 'secondary' | 'link';

export const BUTTON_HEIGHTS: Readonly<Record<ButtonSize, number>> = { small: 24, medium: 32, large: 40 };

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  size?: ButtonSize;
  variant?: ButtonVariant;
}

export function Button({ size = 'medium', variant = 'primary', className, type = 'button', ...rest }: ButtonProps) {
  const classes = ['h-btn', `h-btn--${size}`, `h-btn--${variant}`, className].filter(Boolean).join(' ');
  return <button type={type} className={classes} data-size={size} {...rest} />;
}
