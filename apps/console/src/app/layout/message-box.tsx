/**
 * The bell's message box: Message / Notice / ToDo tabs and the role-switch action (seed section 6). Device
 * alerts and notices fill these lists when the alerts area lands; until then the tabs say they are empty.
 */
import { Button, Empty, Message, Tabs } from '@arco-design/web-react';
import { useLocale } from '../../lib/i18n';
import { useRoleSwitch } from '../../lib/user';

export function MessageBox() {
  const t = useLocale();
  const { canSwitch, role, switchRole } = useRoleSwitch();
  const tabs = ['message', 'notice', 'todo'] as const;

  return (
    <div className="message-box">
      <Tabs defaultActiveTab="message" type="rounded" size="small">
        {tabs.map((tab) => (
          <Tabs.TabPane key={tab} title={t(`messageBox.tab.${tab}`)}>
            <Empty className="message-box-empty" description={t('messageBox.empty')} />
          </Tabs.TabPane>
        ))}
      </Tabs>
      <div className="message-box-footer">
        <Button type="text" size="small" disabled>
          {t('messageBox.allRead')}
        </Button>
        {canSwitch && (
          <Button
            type="text"
            size="small"
            title={
              role === 'admin' ? t('messageBox.switchRoles.toUser') : t('messageBox.switchRoles.toAdmin')
            }
            onClick={() => {
              const next = switchRole();
              if (next) Message.success(t('messageBox.switchRoles.success', { role: t(`role.${next}`) }));
            }}
          >
            {t('messageBox.switchRoles')}
          </Button>
        )}
      </div>
    </div>
  );
}
