"""
Choose the number of components with GridSearchCV
=================================================

``n_components`` is an ordinary hyper-parameter, so
:class:`~sklearn.model_selection.GridSearchCV` picks it by cross-validation, together with the
kernel width. Here :class:`~graphdr.methods.KDA_GE` on a subset of the digits, scored by a
1-NN classifier on the embedding. Each estimator checks its bound: for KDA at most
``C - 1`` directions exist, and asking for more raises a ``ValueError`` that says so.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from graphdr.methods import KDA_GE

X, y = load_digits(return_X_y=True)
X, y = X[:450], y[:450]  # a subset keeps the example fast
pipe = Pipeline(
    [
        ("scale", StandardScaler()),
        ("dr", KDA_GE(kernel="rbf")),
        ("knn", KNeighborsClassifier(n_neighbors=1)),
    ]
)
grid = {"dr__n_components": [1, 2, 3, 5, 7, 9], "dr__gamma": [0.003, 0.03]}
search = GridSearchCV(pipe, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0))
search.fit(X, y)
print("best parameters:", search.best_params_)
print(f"best cross-validated accuracy: {search.best_score_:.3f}")

# %%
# Accuracy against the number of components
# -----------------------------------------
# Accuracy rises with the dimension and levels off before the bound ``C - 1 = 9``.
results = pd.DataFrame(search.cv_results_)
fig, ax = plt.subplots(figsize=(4.5, 3), layout="constrained")
for gamma, part in results.groupby("param_dr__gamma"):
    ax.errorbar(
        part["param_dr__n_components"].astype(int),
        part["mean_test_score"],
        yerr=part["std_test_score"],
        marker="o",
        capsize=2,
        label=f"gamma = {gamma}",
    )
ax.set_xlabel("n_components")
ax.set_ylabel("1-NN accuracy (3-fold CV)")
ax.set_xticks(np.arange(1, 10))
ax.legend()
plt.show()

# %%
# The bound is checked
# --------------------
try:
    KDA_GE(n_components=12).fit(X, y)
except ValueError as error:
    print(error)
