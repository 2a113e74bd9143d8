"""
Compare methods on a dataset
============================

Fit several methods on the same training part of the digits, score a 1-NN classifier on each
embedding of the test part, and draw the 2-D embeddings side by side with the paper figures'
style (:func:`graphdr.reporting.figure_style`), grid (:func:`graphdr.reporting.panel_grid`,
at most :data:`graphdr.reporting.DOUBLE_COLUMN` inches wide) and one class legend below the
panels (:func:`graphdr.plotting.embedding_legend`).
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from graphdr import reporting
from graphdr.methods import DEE, KDA_GE, KQMI, LDA_GE, PCA_GE
from graphdr.plotting import embedding_legend, plot_embedding

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, train_size=500, stratify=y, random_state=0
)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)

methods = {
    "PCA-GE": PCA_GE(n_components=9),
    "LDA-GE": LDA_GE(n_components=9),
    "KDA-GE": KDA_GE(n_components=9, kernel="rbf"),
    "KQMI": KQMI(n_components=9, gamma=0.01),
    "DEE": DEE(n_components=9, random_state=0),
}
embeddings, scores = {}, []
for name, method in methods.items():
    method.fit(X_train, y_train)
    Z_train, Z_test = method.transform(X_train), method.transform(X_test)
    knn = KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train)
    scores.append({"method": name, "1-NN accuracy (9 dims)": knn.score(Z_test, y_test)})
    embeddings[name] = Z_test
print(pd.DataFrame(scores).to_string(index=False, float_format="%.3f"))

# %%
# The embeddings in two dimensions
# --------------------------------
# Five panels do not fit in one row of a printed page: ``panel_grid`` puts them in two rows.
nrows, ncols = reporting.panel_grid(len(embeddings))
with reporting.figure_style(**{"figure.figsize": (2.2 * ncols + 0.4, 2.1 * nrows + 0.6)}):
    fig = plt.figure()
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, (name, Z) in zip(axes, embeddings.items(), strict=False):
        plot_embedding(Z, y_test, ax, legend=False, title=name)
    for ax in axes[len(embeddings) :]:
        ax.set_axis_off()
    embedding_legend(axes[0], figure=fig)
plt.show()
