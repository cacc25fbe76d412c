package checkpoint_test

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

func fakeClientset(objs ...runtime.Object) kubernetes.Interface { return fake.NewClientset(objs...) }
