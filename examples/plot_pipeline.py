"""
Fit and transform in a scikit-learn Pipeline
============================================

Every graphdr method is a scikit-learn transformer, so it slots into a
:class:`~sklearn.pipeline.Pipeline` between a scaler and a classifier. Here kernel discriminant
analysis as a graph embedding (:class:`~graphdr.methods.KDA_GE`) maps the 64 pixels of the
handwritten digits to the ``C - 1 = 9`` discriminant directions, and a 1-nearest-neighbour
classifier works in that space. The Pipeline fits the scaler and the embedding on the training
part only, so the test score is honest.
"""

# %%
# Train and score the pipeline
# ----------------------------
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from graphdr.methods import KDA_GE

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
model = make_pipeline(
    StandardScaler(),
    KDA_GE(n_components=9, kernel="rbf"),
    KNeighborsClassifier(n_neighbors=1),
)
model.fit(X_train, y_train)
print(f"1-NN test accuracy on the KDA embedding: {model.score(X_test, y_test):.3f}")

# %%
# Look at the embedding
# ---------------------
# The fitted steps are reachable by name; ``transform`` of the first two steps gives the test
# samples' coordinates. :func:`graphdr.plotting.plot_embedding` draws the first two columns,
# one colour and marker per class, with the legend outside the axes.
import matplotlib.pyplot as plt

from graphdr.plotting import plot_embedding

Z_test = model[:-1].transform(X_test)
fig, ax = plt.subplots(figsize=(4.5, 3.5), layout="constrained")
plot_embedding(Z_test, y_test, ax, s=8, title="Digits, KDA-GE (test samples)")
plt.show()
