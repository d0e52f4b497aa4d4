import PackageForm from '../components/package-form';

export default function PackageCreatePage() {
  return <PackageForm />;
}
