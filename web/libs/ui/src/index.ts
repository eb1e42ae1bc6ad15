import ui from './ui.module.css';

/**
 * The shared classes of ui.module.css (design tokens, `visuallyHidden`, `hFieldErrors`, …)
 * for apps that style their own markup like the shared components.
 */
export { ui };
export * from './cx';
export * from './Button';
export * from './SectionBlock';
export * from './Dialog';
export * from './NotificationBanner';
export * from './fields';
export * from './states';
export * from './media';
export * from './remote';
export * from './HostedCardFields';
export * from './CardBrands';
export * from './PayTerms';
export * from './countries';
export * from './purchase';
export * from './HumanVerification';
export * from './LoginForm';
export * from './dates';
