import ProviderForm from '../components/provider-form';

export default function ProviderCreatePage() {
  return <ProviderForm />;
}
