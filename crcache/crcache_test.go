package crcache_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	crc "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kubesync/kubesync/crcache"
	"github.com/kubesync/kubesync/informer"
)

func TestNewInformerIsKubesyncs(t *testing.T) {
	lw := &cache.ListWatch{}
	if _, ok := crcache.NewInformer(lw, &corev1.Pod{}, time.Hour, nil).(*informer.Informer); !ok {
		t.Fatal("a Pod informer is not kubesync's")
	}
	if crcache.Options(crc.Options{}).NewInformer == nil {
		t.Fatal("Options does not set NewInformer")
	}
}

func TestNewInformerFallsBackToClientGos(t *testing.T) {
	inf := crcache.NewInformer(&cache.ListWatch{}, valueObject{}, time.Hour, nil)
	if _, ok := inf.(*informer.Informer); ok {
		t.Fatal("an object informer.New refuses got kubesync's informer")
	}
}

// valueObject is a runtime.Object that is not a pointer, which informer.New refuses.
type valueObject struct{}

func (valueObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (valueObject) DeepCopyObject() runtime.Object   { return valueObject{} }
