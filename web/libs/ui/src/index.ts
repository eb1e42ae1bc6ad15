import { ensureBaseStyles } from './styles';

ensureBaseStyles();

export * from './styles';
export * from './Button';
export * from './SectionBlock';
export * from './Modal';
export * from './Dialog';
export * from './NotificationBanner';
export * from './fields';
export * from './states';
export * from './media';
export * from './remote';
export * from './HostedCardFields';
export * from './countries';
