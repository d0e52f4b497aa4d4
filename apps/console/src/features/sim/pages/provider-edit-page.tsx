import { useParams } from 'react-router';
import ProviderForm from '../components/provider-form';

export default function ProviderEditPage() {
  const { id = '' } = useParams();
  const n = Number(id);
  // A new id remounts the form, so its fields never mix two providers.
  return <ProviderForm key={id} id={Number.isInteger(n) && n > 0 ? n : -1} />;
}
