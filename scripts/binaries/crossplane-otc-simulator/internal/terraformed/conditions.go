package terraformed

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
)

// The condition types upjet adds to crossplane-runtime's Ready and Synced.
const (
	AsyncOperation     xpv1.ConditionType = "AsyncOperation"
	LastAsyncOperation xpv1.ConditionType = "LastAsyncOperation"
)

// Reasons of upjet's conditions, as its Terraform CLI workspaces (the path
// provider-opentelekomcloud's controllers take) report them.
const (
	reasonOngoing        xpv1.ConditionReason = "Ongoing"
	reasonFinished       xpv1.ConditionReason = "Finished"
	reasonSuccess        xpv1.ConditionReason = "Success"
	reasonApplyFailure   xpv1.ConditionReason = "ApplyFailure"
	reasonDestroyFailure xpv1.ConditionReason = "DestroyFailure"
)

func asyncOngoing() xpv1.Condition {
	return xpv1.Condition{Type: AsyncOperation, Status: corev1.ConditionFalse, Reason: reasonOngoing, LastTransitionTime: metav1.Now()}
}

func asyncFinished() xpv1.Condition {
	return xpv1.Condition{Type: AsyncOperation, Status: corev1.ConditionTrue, Reason: reasonFinished, LastTransitionTime: metav1.Now()}
}

// lastAsync is the verdict on an operation that ended: Success, or the
// failure upjet names after Terraform's command (apply for create and
// update, destroy for delete).
func lastAsync(kind OperationKind, err error) xpv1.Condition {
	if err == nil {
		return xpv1.Condition{Type: LastAsyncOperation, Status: corev1.ConditionTrue, Reason: reasonSuccess, LastTransitionTime: metav1.Now()}
	}
	reason := reasonApplyFailure
	if kind == OperationDelete {
		reason = reasonDestroyFailure
	}
	return xpv1.Condition{Type: LastAsyncOperation, Status: corev1.ConditionFalse, Reason: reason, Message: err.Error(), LastTransitionTime: metav1.Now()}
}
