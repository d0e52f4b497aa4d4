import { useParams } from 'react-router';
import PackageForm from '../components/package-form';

export default function PackageEditPage() {
  const { id = '' } = useParams();
  const n = Number(id);
  // A new id remounts the form, so its fields never mix two packages.
  return <PackageForm key={id} id={Number.isInteger(n) && n > 0 ? n : -1} />;
}
