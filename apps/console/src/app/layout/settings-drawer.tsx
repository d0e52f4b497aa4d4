/**
 * The settings drawer (seed sections 2 and 9): opens from the navbar gear, or from a fixed button when the navbar
 * is hidden. Changes apply at once for this session; "Copy Settings" hands out the JSON to keep them.
 */
import type { ReactNode } from 'react';
import { Alert, Button, ColorPicker, Drawer, InputNumber, Message, Switch } from '@arco-design/web-react';
import { IconSettings } from '@arco-design/web-react/icon';
import { useLocale } from '../../lib/i18n';
import { settingsForCopy, updateSettings, useSettings } from '../../lib/settings';
import { themeShades } from '../theme-color';

type BoolKey = 'navbar' | 'menu' | 'topMenu' | 'footer' | 'tabBar' | 'menuFromServer' | 'colorWeak';

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="settings-block">
      <h5 className="settings-block-title">{title}</h5>
      {children}
    </section>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="settings-row">
      <span>{label}</span>
      {children}
    </div>
  );
}

function SwitchRow({
  label,
  field,
  onChange,
}: {
  label: string;
  field: BoolKey;
  onChange?: (v: boolean) => void;
}) {
  const settings = useSettings();
  return (
    <Row label={label}>
      <Switch
        size="small"
        aria-label={label}
        data-testid={`settings-${field}`}
        checked={settings[field]}
        onChange={(v: boolean) => (onChange ? onChange(v) : updateSettings({ [field]: v }))}
      />
    </Row>
  );
}

export function SettingsDrawer() {
  const t = useLocale();
  const settings = useSettings();
  const close = () => updateSettings({ globalSettings: false });
  let shades: string[] = [];
  try {
    shades = themeShades(settings.themeColor, settings.theme);
  } catch {
    shades = [];
  }

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(JSON.stringify(settingsForCopy(settings), null, 2));
      Message.success(t('settings.copySettings.message'));
    } catch {
      Message.error(t('settings.copySettings.failed'));
    }
  };

  return (
    <>
      {!settings.navbar && (
        <div className="fixed-settings">
          <Button
            type="primary"
            icon={<IconSettings />}
            aria-label={t('settings.title')}
            onClick={() => updateSettings({ globalSettings: true })}
          />
        </div>
      )}
      <Drawer
        data-testid="settings-drawer"
        width={300}
        title={
          <>
            <IconSettings /> {t('settings.title')}
          </>
        }
        visible={settings.globalSettings}
        onCancel={close}
        footer={
          <div className="settings-footer">
            <Button onClick={close}>{t('settings.close')}</Button>
            <Button type="primary" onClick={() => void copy()} data-testid="settings-copy">
              {t('settings.copySettings')}
            </Button>
          </div>
        }
      >
        <Block title={t('settings.themeColor')}>
          <ColorPicker
            value={settings.themeColor}
            onChange={(v) => {
              if (typeof v === 'string') updateSettings({ themeColor: v });
            }}
            showText
            disabledAlpha
          />
          <ul className="settings-shades" aria-label={t('settings.themeColor.description')}>
            {shades.map((c) => (
              <li key={c} style={{ backgroundColor: c }} />
            ))}
          </ul>
          <p className="settings-caption">{t('settings.themeColor.description')}</p>
        </Block>
        <Block title={t('settings.content')}>
          <SwitchRow label={t('settings.navbar')} field="navbar" />
          <SwitchRow label={t('settings.menu')} field="menu" />
          <SwitchRow
            label={t('settings.topMenu')}
            field="topMenu"
            onChange={(v) => updateSettings(v ? { topMenu: true, menuCollapse: false } : { topMenu: false })}
          />
          <SwitchRow label={t('settings.footer')} field="footer" />
          <SwitchRow label={t('settings.tabBar')} field="tabBar" />
          <SwitchRow
            label={t('settings.menuFromServer')}
            field="menuFromServer"
            // A fresh start each time: the guard loads the menu again when it is switched on.
            onChange={(v) => updateSettings({ menuFromServer: v, serverMenu: undefined })}
          />
          <Row label={t('settings.menuWidth')}>
            <InputNumber
              size="small"
              style={{ width: 80 }}
              min={160}
              max={480}
              step={10}
              aria-label={t('settings.menuWidth')}
              data-testid="settings-menuWidth"
              value={settings.menuWidth}
              onChange={(v?: number) => {
                if (typeof v === 'number' && Number.isFinite(v)) updateSettings({ menuWidth: v });
              }}
            />
          </Row>
        </Block>
        <Block title={t('settings.otherSettings')}>
          <SwitchRow label={t('settings.colorWeak')} field="colorWeak" />
        </Block>
        <Alert content={t('settings.alertContent')} />
      </Drawer>
    </>
  );
}
